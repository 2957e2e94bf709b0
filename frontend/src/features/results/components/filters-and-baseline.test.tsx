import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { analysisOf, comparisonsPageFixture, resultsFixture, verdictFixture } from '@/testing/fixtures';
import type { ComparisonVerdict, ResultGroup } from '@/lib/api-types';
import { filterResults } from './filter-results';
import { ResultsPanel } from './results-panel';

const group = resultsFixture.groups[0] as ResultGroup;

describe('filterResults', () => {
  it('keeps the chosen arms and periods in the groups and the analysis, and the arm order for styles', () => {
    const filtered = filterResults(resultsFixture, { arms: ['https-h1', 'h3'], periods: [9, 15] });
    expect(filtered.arms).toEqual(resultsFixture.arms);
    const first = filtered.groups[0] as ResultGroup;
    expect(first.periods).toEqual([9, 12, 15]);
    expect(Object.keys(first.arms)).toEqual(['https-h1', 'h3']);
    expect(first.arms['h3']?.avg_ms).toEqual(group.arms['h3']?.avg_ms.slice(2, 5));
    expect(first.arms['h3']?.series_ms).toHaveLength(3);
    expect(Object.keys(first.requests)).toEqual(['https-h1', 'h3']);
    const analysis = analysisOf(filtered);
    expect(new Set(analysis.series.map((row) => row.arm))).toEqual(new Set(['https-h1', 'h3']));
    expect(new Set(analysis.series.map((row) => row.period))).toEqual(new Set([9, 12, 15]));
    expect(analysis.comparisons.every((row) => row.arm === 'h3')).toBe(true);
  });

  it('changes nothing with every arm and no period range', () => {
    const filtered = filterResults(resultsFixture, { arms: resultsFixture.arms, periods: null });
    expect(filtered.groups).toEqual(resultsFixture.groups);
    expect(analysisOf(filtered).requests).toEqual(analysisOf(resultsFixture).requests);
  });
});

describe('results panel: filters', () => {
  it('filters every chart by arm and period, and shows everything again', async () => {
    const { user } = renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    const avg = await screen.findByTestId('chart-avg');
    expect(avg).toHaveAttribute('data-points', String(10 * 3));
    const filters = screen.getByRole('group', { name: 'Filter the charts' });

    await user.click(within(filters).getByRole('checkbox', { name: 'h2' }));
    await waitFor(() => expect(screen.getByTestId('chart-avg')).toHaveAttribute('data-points', String(10 * 2)));
    expect(screen.getByTestId('chart-gain')).toHaveAttribute('data-points', String(10)); // h3 only

    await user.selectOptions(within(filters).getByLabelText('Periods from'), '9');
    await user.selectOptions(within(filters).getByLabelText('to'), '15');
    await waitFor(() => expect(screen.getByTestId('chart-avg')).toHaveAttribute('data-points', String(3 * 2)));
    expect(screen.getByTestId('chart-series')).toHaveAttribute('data-points', String(3 * 12 * 2));

    await user.click(within(filters).getByRole('button', { name: 'Show everything' }));
    await waitFor(() => expect(screen.getByTestId('chart-avg')).toHaveAttribute('data-points', String(10 * 3)));
  });

  it("draws one period's repetitions, one line per arm, for the period picked (the seed's g1 … g10)", async () => {
    const { user } = renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    const trials = await screen.findByTestId('chart-period-trials');
    expect(trials).toHaveAttribute('data-points', String(12 * 3));
    const card = trials.closest('section') as HTMLElement;
    await user.selectOptions(within(card).getByLabelText('Period (requests per series)'), '30');
    expect(within(card).getByLabelText('Period (requests per series)')).toHaveValue('30');
    expect(screen.getByTestId('chart-period-trials')).toHaveAttribute('data-points', String(12 * 3));
  });

  it('filters by device and by network profile, falling back to a measured pair', async () => {
    const [first, second] = resultsFixture.groups as [ResultGroup, ResultGroup];
    const results = {
      ...resultsFixture,
      groups: [first, { ...second, device: 'pixel-8', network_profile: 'lte' }],
    };
    server.use(http.get('*/api/v1/comparisons/:id/results', () => HttpResponse.json(results)));
    const { user } = renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    await screen.findByTestId('chart-avg');
    const filters = screen.getByRole('group', { name: 'Filter the charts' });
    expect(within(filters).getByLabelText('Device')).toHaveValue('host-lab-1');
    expect(within(filters).getByLabelText('Network profile')).toHaveValue('transatlantic');
    // pixel-8 ran on lte only: picking it picks its profile too.
    await user.selectOptions(within(filters).getByLabelText('Device'), 'pixel-8');
    expect(within(filters).getByLabelText('Network profile')).toHaveValue('lte');
    expect(screen.getAllByText('pixel-8 · network profile: lte').length).toBeGreaterThan(0);
    await user.selectOptions(within(filters).getByLabelText('Network profile'), 'transatlantic');
    expect(within(filters).getByLabelText('Device')).toHaveValue('host-lab-1');
  });

  it('says so when every arm is unticked', async () => {
    const { user } = renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    await screen.findByTestId('chart-avg');
    const filters = screen.getByRole('group', { name: 'Filter the charts' });
    for (const arm of resultsFixture.arms) await user.click(within(filters).getByRole('checkbox', { name: arm }));
    expect(screen.getByText(/No arm is selected/)).toBeInTheDocument();
    expect(screen.queryByTestId('chart-avg')).not.toBeInTheDocument();
  });
});

describe('results panel: compare against another comparison', () => {
  it("lists the other finished comparisons and shows the verdict API's answer against the one picked", async () => {
    const other = { ...(comparisonsPageFixture.results[0] as (typeof comparisonsPageFixture.results)[number]), id: '4d5e6f70-8192-4a3b-9c4d-5e6f708192a3', name: 'Last week on main' };
    const asked: (string | null)[] = [];
    server.use(
      http.get('*/api/v1/comparisons', ({ request }) => {
        expect(new URL(request.url).searchParams.get('status')).toBe('finished');
        return HttpResponse.json({ ...comparisonsPageFixture, count: 2, results: [comparisonsPageFixture.results[0], other] });
      }),
      http.get('*/api/v1/comparisons/:id/verdict', ({ request }) => {
        const baseline = new URL(request.url).searchParams.get('baseline');
        asked.push(baseline);
        if (baseline === null) return HttpResponse.json(verdictFixture);
        if (baseline === 'branch:nowhere') {
          return HttpResponse.json({ detail: 'No finished comparison of this spec on branch nowhere.' }, { status: 404 });
        }
        const against: ComparisonVerdict = {
          ...verdictFixture,
          outcome: 'regression',
          baseline: { kind: 'comparison', comparison: other.id, arm: null, ref: baseline },
        };
        return HttpResponse.json(against);
      }),
    );
    const { user } = renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    const picker = await screen.findByRole('form', { name: 'Baseline' });
    const select = within(picker).getByLabelText('Baseline');
    await within(select).findByRole('option', { name: /Last week on main/ });
    // This comparison itself is no baseline for itself.
    expect(within(select).queryByRole('option', { name: new RegExp(resultsFixture.comparison) })).toBeNull();
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).not.toContain(
      expect.stringContaining(comparisonsPageFixture.results[0]?.name ?? '?'),
    );
    await user.selectOptions(select, other.id);
    await user.click(within(picker).getByRole('button', { name: 'Compare' }));

    const answer = await screen.findByTestId('baseline-verdict');
    expect(within(answer).getByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'regression');
    expect(within(answer).getByRole('link', { name: 'that comparison' })).toHaveAttribute('href', `/comparisons/${other.id}`);
    expect(asked).toContain(other.id);

    await user.selectOptions(select, 'ref');
    await user.type(within(picker).getByLabelText('Branch or tag'), 'branch:nowhere');
    await user.click(within(picker).getByRole('button', { name: 'Compare' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('No verdict against branch:nowhere: No finished comparison');
  });
});
