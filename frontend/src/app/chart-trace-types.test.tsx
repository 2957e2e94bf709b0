import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import {
  apiResultsFixture,
  delaySweepResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
} from '@/testing/fixtures';
import { buildTrendChart } from '@/features/trends/components/build-trend-chart';
import type { Trend } from '@/features/trends/api/get-trend';
import type { ComparisonResults } from '@/lib/api-types';
import Plotly from '@/features/results/components/plotly-charts';
import { ResultsPanel } from '@/features/results/components/results-panel';

vi.setConfig({ testTimeout: 60_000 });

/** The trace types of every chart the results panel draws for `results` (Plotly.react is a stub in tests). */
async function traceTypesDrawn(results: ComparisonResults): Promise<string[]> {
  server.use(http.get('*/api/v1/comparisons/:id/results', () => HttpResponse.json(results)));
  vi.mocked(Plotly.react).mockClear();
  const { unmount } = renderWithProviders(<ResultsPanel comparisonId={results.comparison} live={false} />);
  await waitFor(() => expect(screen.getAllByRole('figure').length).toBeGreaterThan(0));
  await waitFor(
    () => expect(document.querySelectorAll('.plot:not([data-state="ready"])')).toHaveLength(0),
    { timeout: 30_000 },
  );
  const traces = vi.mocked(Plotly.react).mock.calls.flatMap((call) => call[1]);
  unmount();
  // A trace without a type is a scatter (Plotly's default).
  return traces.map((trace) => trace.type ?? 'scatter');
}

// The charts' Plotly (plotly-charts.ts) is built with the trace types they draw and no others.
describe('the charts’ Plotly', () => {
  it('registers every trace type the charts draw, and no other', async () => {
    const drawn = new Set<string>();
    for (const results of [resultsFixture, delaySweepResultsFixture, payloadSweepResultsFixture, apiResultsFixture]) {
      for (const type of await traceTypesDrawn(results)) drawn.add(type);
    }
    // The trends page's chart too (only the fields its traces read).
    const trend = buildTrendChart({
      metric: 'total_ms', statistic: 'median', unit: 'ms', arm: 'h2',
      points: [{ comparison_id: 'c1', value: 5, ci95: [4, 6], verdict: 'improvement', created_at: '2026-11-01T00:00:00Z' }],
    } as unknown as Trend);
    for (const trace of trend.data) drawn.add(trace.type ?? 'scatter');

    // The real module, not the tests' stub: what the browser loads.
    const real = await vi.importActual<{ default: { PlotSchema: { get(): { traces: object } } } }>(
      '@/features/results/components/plotly-charts',
    );
    const registered = Object.keys(real.default.PlotSchema.get().traces);
    expect([...drawn].sort()).toEqual(['bar', 'box', 'scatter']);
    expect(registered.sort()).toEqual([...drawn].sort());
  });
});
