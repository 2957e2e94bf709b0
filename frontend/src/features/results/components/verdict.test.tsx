import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  analysisOf,
  apiVerdictFixture,
  parallelResultsFixture,
  parallelVerdictFixture,
  resultsFixture,
  storedV1ResultsFixture,
  storedV1VerdictFixture,
  ttfbVerdictFixture,
  verdictFixture,
} from '@/testing/fixtures';
import type { ArmComparison, ArmVerdict, ComparisonVerdict, VerdictLook } from '@/lib/api-types';
import { EffectTable, orderedComparisons, VerdictBanner } from './verdict';

const analysis = analysisOf(resultsFixture);
const arms = resultsFixture.arms;

/** The gate's own verdict lines (the lines beside them are in a list of their own). */
const gateLines = (banner: HTMLElement) => Array.from(banner.querySelectorAll(':scope > ul.verdict-lines > li'));

describe('verdict banner', () => {
  it("shows the server's overall outcome and the summary line of every verdict, in arm order", () => {
    render(<VerdictBanner verdict={verdictFixture} arms={arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', verdictFixture.outcome);
    expect(verdictFixture.outcome).toBe('improvement');
    expect(banner).toHaveTextContent('Series time, periods 3–30: faster than https-h1 beyond the 5 % margin');
    const items = gateLines(banner);
    expect(items).toHaveLength(verdictFixture.verdicts.length);
    for (const line of verdictFixture.verdicts) expect(banner).toHaveTextContent(line.summary);
    expect(items[0]).toHaveTextContent(/^Improvementh2 \(series time\) vs https-h1/);
  });

  it('shows what the server decided, without ranking the outcomes itself', () => {
    // A document whose overall outcome is not the worst of its lines: the banner still
    // shows the server's (the CLI does the same), so there is one rule, in the backend.
    const first = verdictFixture.verdicts[0] as ArmVerdict;
    const disagreeing: ComparisonVerdict = {
      ...verdictFixture,
      outcome: 'equivalent',
      verdicts: [{ ...first, outcome: 'regression' }],
    };
    render(<VerdictBanner verdict={disagreeing} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'equivalent');
  });

  it('shows a pooled device class with its devices beneath, and when they disagree', () => {
    const first = verdictFixture.verdicts[0] as ArmVerdict;
    const row = (extra: Partial<ArmVerdict>): ArmVerdict => ({ ...first, device: 'android / Pixel 8', ...extra });
    const pooled: ComparisonVerdict = {
      ...verdictFixture,
      beside: null,
      outcome: 'inconclusive',
      verdicts: [
        row({ scope: 'device', device_label: 'p8-b', outcome: 'improvement', summary: 'h2 vs https-h1, p8-b' }),
        row({ scope: 'device', device_label: 'p8-a', outcome: 'regression', summary: 'h2 vs https-h1, p8-a' }),
        row({ scope: 'pooled', device_label: null, outcome: 'inconclusive', devices_disagree: true,
              reason: 'devices disagree: p8-a regress, p8-b improve', summary: 'h2 vs https-h1, android / Pixel 8' }),
      ],
    };
    render(<VerdictBanner verdict={pooled} arms={arms} />);
    const items = within(screen.getByTestId('verdict-banner')).getAllByRole('listitem');
    expect(items.map((li) => li.getAttribute('data-scope'))).toEqual(['pooled', 'device', 'device']);
    expect(items[0]).toHaveTextContent('devices disagree');
    expect(items[1]).toHaveTextContent(/└ Regression.*p8-a/);
    expect(items[2]).toHaveTextContent(/└ Improvement.*p8-b/);
  });

  it('says why an inconclusive comparison is undecided', () => {
    render(<VerdictBanner verdict={apiVerdictFixture} arms={['h1', 'h2', 'h3']} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', 'inconclusive');
    expect(banner).toHaveTextContent(/would need over 64× the blocks|need ≥\d+ blocks per device \(\d+ more\)/);
  });

  it("speaks for the gate's metric", () => {
    render(<VerdictBanner verdict={ttfbVerdictFixture} arms={arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-metric', 'ttfb_ms');
    expect(banner).toHaveTextContent('Median time to first byte of each arm');
    for (const line of ttfbVerdictFixture.verdicts) expect(banner).toHaveTextContent(line.summary);
  });

  it("says why there is nothing to judge, in the server's words", () => {
    const reason = "no arm was compared with the baseline arm 'https-h1' on ttfb_ms: no block has measured, successful requests of both";
    render(<VerdictBanner verdict={{ ...ttfbVerdictFixture, verdicts: [], outcome: 'no_data', outcome_reason: reason }} arms={arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', 'no_data');
    expect(banner).toHaveTextContent(`Nothing to judge.No verdict: ${reason}.`);
    expect(within(banner).queryAllByRole('listitem')).toHaveLength(0);
  });

  it('says when the 2 ms floor widens the margin on sub-millisecond medians', () => {
    const fast: ComparisonVerdict = {
      ...verdictFixture,
      outcome: 'equivalent',
      verdicts: verdictFixture.verdicts.map((v) => ({ ...v, outcome: 'equivalent', margin: 3.33 })),
    };
    const { unmount } = render(<VerdictBanner verdict={fast} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).toHaveTextContent('The 2 ms floor widens the margin to ±333 % here');
    unmount();
    const slow: ComparisonVerdict = { ...verdictFixture, verdicts: verdictFixture.verdicts.map((v) => ({ ...v, margin: 0.05 })) };
    render(<VerdictBanner verdict={slow} arms={arms} />);
    expect(screen.getByTestId('verdict-banner')).not.toHaveTextContent('The 2 ms floor widens');
  });
});

describe('the gate metric and the one beside it', () => {
  it('names the series time it judged and shows the disagreeing per-request time beside it', () => {
    render(<VerdictBanner verdict={parallelVerdictFixture} arms={parallelResultsFixture.arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-metric', 'series_ms');
    expect(within(banner).getByRole('heading', { level: 2 })).toHaveTextContent(
      'Series time, periods 3–30: faster than https-h1 beyond the 5 % margin, with no regression.',
    );
    const beside = screen.getByTestId('verdict-beside');
    expect(beside).toHaveAttribute('data-metric', 'total_ms');
    expect(beside).toHaveAttribute('data-disagrees', 'true');
    expect(beside).toHaveTextContent(
      'Beside it, not gating: per-request time says Regression The gate judged series time, periods 3–30: what ' +
        "the app's user waits for. With requests issued together, each request waits behind its siblings, so " +
        'per-request time can rise while the series loads sooner.',
    );
    expect(within(beside).getByRole('listitem')).toHaveTextContent(/^Regressionh2 vs https-h1.*median \+13\d %/);
    // The gate's own lines are the series time's.
    expect(gateLines(banner).map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^Improvementh2 \(series time\) vs https-h1/),
    ]);
  });

  it('keeps a comparison analysed before series time gated on its per-request verdict, named as such', () => {
    expect(storedV1ResultsFixture.analysis?.version).toBe(1);
    render(<VerdictBanner verdict={storedV1VerdictFixture} arms={storedV1ResultsFixture.arms} />);
    const banner = screen.getByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-metric', 'total_ms');
    expect(within(banner).getByRole('heading', { level: 2 })).toHaveTextContent(
      'Per-request time: faster than https-h1 beyond the 5 % margin, with no regression.',
    );
    expect(banner).toHaveTextContent('Median per-request time of each arm');
    expect(screen.queryByTestId('verdict-beside')).toBeNull();
    expect(gateLines(banner)[0]).toHaveTextContent(/^Improvementh2 vs https-h1, host-lab-1 \/ none: median −58 %/);
  });
});

describe('effect-size table', () => {
  it('puts each period of series time beneath its pooled row', () => {
    const parallel = analysisOf(parallelResultsFixture);
    render(<EffectTable analysis={parallel} arms={parallelResultsFixture.arms} gateMetric="series_ms" />);
    const rows = within(screen.getByTestId('effect-table')).getAllByRole('row').slice(1);
    const series = rows.filter((row) => row.getAttribute('data-metric') === 'series_ms');
    expect(series.map((row) => row.getAttribute('data-scope'))).toEqual(['pooled', ...Array.from({ length: 10 }, () => 'period')]);
    expect(rows[0]).toHaveAttribute('data-metric', 'series_ms');
    expect(series[1]).toHaveTextContent('└ period 3');
    expect(series[10]).toHaveTextContent('└ period 30');
    // h1's four connections serve a series of 3 in one wave: h2 loses there and wins the long ones.
    expect(series[0]).toHaveTextContent('periods disagree');
  });

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
    // Holm over the arm's two profiles on this metric: twice the smaller raw p, capped at 1.
    const family = analysis.comparisons.filter(
      (c) => c.arm === first.arm && c.metric === first.metric && (c.scope ?? 'pooled') === 'pooled',
    );
    expect(family).toHaveLength(2);
    expect(first.p_blocks_holm).toBeCloseTo(Math.min(1, 2 * Math.min(...family.map((c) => c.p_blocks ?? 1))), 12);
    expect(row.querySelector('[data-col="p"]')).toHaveTextContent('< 0.001');
    expect(within(row).getByText('Improvement')).toHaveAttribute('data-outcome', 'improvement');
    expect(row).toHaveAttribute('title', first.verdict.reason);
  });

  it('puts the gate metric first', () => {
    render(<EffectTable analysis={analysis} arms={arms} gateMetric="ttfb_ms" />);
    const rows = within(screen.getByTestId('effect-table')).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveAttribute('data-metric', 'ttfb_ms');
  });

  it('renders nothing without comparisons', () => {
    const { container } = render(<EffectTable analysis={{ ...analysis, comparisons: [] }} arms={arms} />);
    expect(container).toBeEmptyDOMElement();
  });
});

describe('verdict history (run until decided)', () => {
  const look = (n: number, blocks: number, alpha: number, outcome: VerdictLook['outcome'], decision: VerdictLook['decision']): VerdictLook => ({
    look: n,
    blocks_per_device: blocks,
    alpha,
    outcome,
    decision,
    ratio: outcome === 'regression' ? 1.31 : 1.02,
    ci95: outcome === 'regression' ? [1.18, 1.45] : [0.95, 1.1],
    p_value: outcome === 'regression' ? 0.0004 : 0.41,
    verdicts: [],
    at: '2026-11-24T05:00:00Z',
  });

  it('shows a table of the looks under the banner of a run-until-decided comparison', () => {
    const history = [
      look(1, 6, 0.000625, 'inconclusive', 'continue'),
      look(2, 12, 0.001875, 'regression', 'stop'),
    ];
    render(<VerdictBanner verdict={{ ...verdictFixture, history }} arms={arms} />);
    const table = within(screen.getByTestId('verdict-history')).getByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent(/^160\.00063Inconclusive×1\.020 \[0\.950, 1\.100\]0\.410more blocks$/);
    expect(rows[1]).toHaveTextContent(/^2120\.0019Regression×1\.310 \[1\.180, 1\.450\]< 0\.001stopped$/);
    expect(screen.getByTestId('verdict-history')).toHaveTextContent('2 looks, decided at 12 blocks per device');
  });

  it('shows nothing for a fixed number of blocks', () => {
    render(<VerdictBanner verdict={verdictFixture} arms={arms} />);
    expect(screen.queryByTestId('verdict-history')).toBeNull();
  });
});
