import { describe, expect, it } from 'vitest';
import type { Trend, TrendPoint } from '../api/get-trend';
import { buildTrendChart, pointLabel } from './build-trend-chart';

const base: Omit<TrendPoint, 'comparison_id' | 'value' | 'verdict' | 'ci95' | 'commit'> = {
  comparison_name: 'c',
  status: 'finished',
  created_at: '2026-11-20T10:00:00Z',
  branch: 'main',
  version: '2.1',
  tags: {},
  device: 'd',
  device_model: 'Pixel 8',
  platform: 'android',
  stand_in: null,
  profile: 'lte',
  n: 10,
  failed_requests: 0,
  baseline_arm: 'https-h1',
  verdict_summary: null,
  change_pct: null,
  change_ci95_pct: null,
};

const trend = (points: Partial<TrendPoint>[]): Trend => ({
  metric: 'total_ms',
  statistic: 'median',
  unit: 'ms',
  arm: 'h2',
  branch: 'main',
  device_model: null,
  platform: null,
  profile: null,
  order: 'time',
  limit: 500,
  truncated: false,
  points: points.map((p, i) => ({
    ...base,
    comparison_id: `id-${i}`,
    value: 10,
    verdict: null,
    ci95: null,
    commit: null,
    ...p,
  })),
});

describe('buildTrendChart', () => {
  it('marks each verdict by shape, with CI error bars and a legend entry per verdict present', () => {
    const { data, layout } = buildTrendChart(
      trend([
        { value: 100, ci95: [95, 104], verdict: 'equivalent', commit: 'abcdef123456' },
        { value: 130, ci95: [120, 141], verdict: 'regression' },
        { value: 80, ci95: [78, 83], verdict: 'improvement' },
        { value: 90, ci95: null, verdict: null },
      ]),
    );
    type Trace = {
      name?: string;
      y: (number | null)[];
      marker: { symbol: string[] };
      error_y: { array: number[]; arrayminus: number[] };
    };
    const [main, ...legend] = data as unknown as Trace[];
    expect(main?.y).toEqual([100, 130, 80, 90]);
    expect(main?.marker.symbol).toEqual(['circle', 'triangle-up', 'triangle-down', 'x-thin-open']);
    expect(main?.error_y.array).toEqual([4, 11, 3, 0]);
    expect(main?.error_y.arrayminus).toEqual([5, 10, 2, 0]);
    expect(legend.map((t) => t.name)).toEqual(['Equivalent', 'Regression', 'Improvement', 'Not compared']);
    // Legend traces draw nothing: the chart's point count stays one per comparison.
    expect(legend.every((t) => t.y[0] === null)).toBe(true);
    expect(layout.xaxis?.ticktext).toEqual(['abcdef12', '2.1', '2.1', '2.1']);
    expect(layout.yaxis?.title).toEqual({ text: 'Median total time of h2 (ms)' });
  });

  it('has no error bars for statistics without a CI', () => {
    const { data } = buildTrendChart({ ...trend([{ value: 5 }]), statistic: 'p90' });
    expect((data[0] as Record<string, unknown>).error_y).toBeUndefined();
  });

  it('labels a point by commit, else version, else date', () => {
    expect(pointLabel({ ...base, comparison_id: 'x', value: 1, verdict: null, ci95: null, commit: null, version: null })).toBe('20 Nov');
  });
});
