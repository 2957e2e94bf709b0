import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { apiResultsFixture, resultsFixture } from '@/testing/fixtures';
import { analysisOf, type Analysis, type ArmComparison } from '../api/analysis-types';
import { EffectTable, overallOutcome, orderedComparisons, VerdictBanner } from './verdict';

const analysis = analysisOf(resultsFixture) as Analysis;
const arms = resultsFixture.arms;

describe('verdict banner', () => {
  it('shows the overall outcome and the engine summary line of every total_ms comparison', () => {
    render(<VerdictBanner analysis={analysis} arms={arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', 'improvement');
    expect(banner).toHaveTextContent('Faster than https-h1 beyond the 5 % margin');
    const totals = analysis.comparisons.filter((c) => c.metric === 'total_ms');
    const items = within(banner).getAllByRole('listitem');
    expect(items).toHaveLength(totals.length);
    for (const comparison of totals) expect(banner).toHaveTextContent(comparison.summary);
    // Lines follow the arm order: h2 before h3.
    expect(items[0]).toHaveTextContent(/^Improvementh2 vs https-h1/);
  });

  it('lets the worst outcome decide, and says why an inconclusive comparison is undecided', () => {
    const first = analysis.comparisons[0] as ArmComparison;
    const regressed: Analysis = {
      ...analysis,
      comparisons: [{ ...first, verdict: { ...first.verdict, outcome: 'regression' } }, ...analysis.comparisons.slice(1)],
    };
    const { unmount } = render(<VerdictBanner analysis={regressed} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'regression');
    unmount();

    const api = analysisOf(apiResultsFixture) as Analysis;
    render(<VerdictBanner analysis={api} arms={apiResultsFixture.arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', 'inconclusive');
    expect(banner).toHaveTextContent(/need ≥\d+ blocks per device \(\d+ more\)/);
  });

  it('speaks for the gate metric, and falls back to total time when the gate metric was not compared', () => {
    const ttfb = analysis.comparisons.filter((c) => c.metric === 'ttfb_ms');
    expect(ttfb.length).toBeGreaterThan(0);
    const { unmount } = render(<VerdictBanner analysis={analysis} arms={arms} gateMetric="ttfb_ms" />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-metric', 'ttfb_ms');
    expect(within(banner).getAllByRole('listitem')).toHaveLength(ttfb.length);
    for (const comparison of ttfb) expect(banner).toHaveTextContent(comparison.summary);
    unmount();

    render(<VerdictBanner analysis={analysis} arms={arms} gateMetric="p99_ms" />);
    const fallback = screen.getByTestId('verdict-banner');
    expect(fallback).toHaveAttribute('data-metric', 'total_ms');
    expect(fallback).toHaveTextContent("The gate's metric (p99_ms) was not compared.");
  });

  it('says when the 2 ms floor widens the margin on sub-millisecond medians', () => {
    const fast: Analysis = {
      ...analysis,
      comparisons: analysis.comparisons.map((c) => ({ ...c, verdict: { ...c.verdict, outcome: 'equivalent', margin: 3.33 } })),
    };
    const { unmount } = render(<VerdictBanner analysis={fast} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).toHaveTextContent('The 2 ms floor widens the margin to ±333 % here');
    unmount();
    const slow: Analysis = {
      ...analysis,
      comparisons: analysis.comparisons.map((c) => ({ ...c, verdict: { ...c.verdict, margin: 0.05 } })),
    };
    render(<VerdictBanner analysis={slow} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).not.toHaveTextContent('2 ms floor');
  });

  it('orders outcomes like the CI gate', () => {
    expect(overallOutcome([])).toBeNull();
    expect(overallOutcome(['equivalent', 'improvement'])).toBe('improvement');
    expect(overallOutcome(['improvement', 'inconclusive'])).toBe('inconclusive');
    expect(overallOutcome(['inconclusive', 'regression', 'equivalent'])).toBe('regression');
    expect(overallOutcome(['equivalent'])).toBe('equivalent');
  });
});

describe('effect-size table', () => {
  it('lists every comparison, total time first, with CI, effect sizes and Holm p', () => {
    render(<EffectTable analysis={analysis} arms={arms} />);
    const table = screen.getByTestId('effect-table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(analysis.comparisons.length);
    const metrics = rows.map((row) => row.getAttribute('data-metric'));
    expect(metrics.indexOf('ttfb_ms')).toBeGreaterThan(metrics.lastIndexOf('total_ms'));

    const ordered = orderedComparisons(analysis, arms);
    const first = ordered[0] as ArmComparison;
    const row = rows[0] as HTMLElement;
    expect(row).toHaveAttribute('data-arm', first.arm);
    const change = within(row).getByText(/\[/);
    expect(change.textContent).toMatch(/^−\d+ % \[−\d+ %, −\d+ %\]$/);
    expect(row).toHaveTextContent(first.cliffs_label);
    expect(row.querySelector('[data-col="cliffs"]')).toHaveTextContent(/^−1\.00 large$/);
    expect(row.querySelector('[data-col="cohens"]')).toHaveTextContent(first.cohens_label);
    expect(row.querySelector('[data-col="p"]')).toHaveTextContent('0.002');
    expect(within(row).getByText('Improvement')).toHaveAttribute('data-outcome', 'improvement');
    expect(row).toHaveAttribute('title', first.verdict.reason);
  });

  it('renders nothing without comparisons', () => {
    const { container } = render(<EffectTable analysis={{ ...analysis, comparisons: [] }} arms={arms} />);
    expect(container).toBeEmptyDOMElement();
  });
});
