import { describe, expect, it } from 'vitest';
import { resultsFixture } from '@/testing/fixtures';
import type { ResultGroup } from '@/lib/api-types';
import { countPoints } from './plot';
import {
  averageChart,
  concurrencyOf,
  gainChart,
  MAX_POINTS_PER_BOX,
  meanGain,
  periodTrialsChart,
  seriesChart,
  seriesChartNote,
  seriesTimeMeaning,
  throughputChart,
} from './build-charts';

const group = resultsFixture.groups[0] as ResultGroup;

describe('chart builders', () => {
  it('draws one trace per arm, in the comparison order', () => {
    const chart = averageChart(resultsFixture, group);
    expect(chart.data.map((trace) => trace.name)).toEqual(['https-h1', 'h2', 'h3']);
    expect(countPoints(chart.data)).toBe(30);
    expect((chart.layout.yaxis?.title as { text: string }).text).toBe('Average series time (ms)');
  });

  it('scales throughput to a readable unit and labels the axis with it', () => {
    const chart = throughputChart(resultsFixture, group);
    const title = (chart.layout.yaxis?.title as { text: string }).text;
    expect(title).toMatch(/^Throughput \((KB|MB)\/s\)$/);
    const firstY = (chart.data[0] as { y: number[] }).y[0] as number;
    const raw = group.arms['https-h1']?.throughput_bps[0] as number;
    expect(firstY).toBeCloseTo(raw / (title.includes('MB') ? 1e6 : 1e3));
  });

  it('leaves the baseline arm out of the gain chart and ignores nulls', () => {
    const chart = gainChart(resultsFixture, group);
    expect(chart.data.map((trace) => trace.name)).toEqual(['h2', 'h3']);
    const sparse = {
      ...group,
      arms: { ...group.arms, h2: { ...group.arms['h2']!, gain_pct: [null, 10, 20, null, null, null, null, null, null, null] } },
    };
    expect(countPoints(gainChart(resultsFixture, sparse).data.slice(0, 1))).toBe(2);
    expect(meanGain(sparse, 'h2')).toBe(15);
    expect(meanGain(sparse, 'https-h1')).toBeNull();
  });

  it('puts every repetition of every period into the series chart', () => {
    const chart = seriesChart(resultsFixture, group);
    const trace = chart.data[0] as { x: string[]; y: number[]; type: string };
    expect(trace.type).toBe('box');
    expect(trace.y).toHaveLength(10 * 12);
    expect(trace.x.slice(0, 12).every((x) => x === '3')).toBe(true);
    expect((trace as { boxpoints?: string }).boxpoints).toBe('all');
  });

  it('draws the points over the boxes only while a period has few enough repetitions to see them', () => {
    const repeated = (times: number) => ({
      ...group,
      arms: Object.fromEntries(
        Object.entries(group.arms).map(([arm, series]) => [
          arm,
          { ...series, series_ms: series.series_ms.map((reps) => Array.from({ length: times }, (_, i) => reps[i % reps.length] ?? 0)) },
        ]),
      ),
    });
    const boxpoints = (times: number) =>
      seriesChart(resultsFixture, repeated(times)).data.map((trace) => (trace as { boxpoints?: string }).boxpoints);
    expect(boxpoints(MAX_POINTS_PER_BOX)).toEqual(['all', 'all', 'all']);
    expect(boxpoints(MAX_POINTS_PER_BOX + 1)).toEqual(['outliers', 'outliers', 'outliers']);
    expect(seriesChartNote(seriesChart(resultsFixture, repeated(MAX_POINTS_PER_BOX)))).toBeUndefined();
    expect(seriesChartNote(seriesChart(resultsFixture, repeated(MAX_POINTS_PER_BOX + 1)))).toMatch(/marks the outliers/);
    // Every value still reaches the box, which Plotly draws from them.
    const trace = seriesChart(resultsFixture, repeated(100)).data[0] as { y: number[] };
    expect(trace.y).toHaveLength(10 * 100);
  });

  it('says which concurrency the series were issued with, and what their time then is', () => {
    const concurrent = { ...group, concurrency: 'parallel 4' };
    for (const chart of [averageChart, gainChart, seriesChart].map((build) => build(resultsFixture, concurrent))) {
      expect((chart.layout.legend?.title as { text: string }).text).toBe('concurrency: parallel 4');
    }
    expect((seriesChart(resultsFixture, concurrent).layout.yaxis?.title as { text: string }).text).toBe(
      'Series time (ms), first request → last',
    );
    expect(seriesTimeMeaning(concurrent)).toContain('first request issued → last response completed');
    // An analysis stored before concurrency existed: sequential, series time a sum.
    const { concurrency: _omitted, ...older } = concurrent;
    expect(concurrencyOf(older)).toBe('sequential');
    expect(seriesTimeMeaning(older)).toContain('sum of the request times');
    expect((averageChart(resultsFixture, older).layout.legend?.title as { text: string }).text).toBe(
      'concurrency: sequential',
    );
  });
});

describe('the seed document figures (seeds/000)', () => {
  it('draws per-period bars for average and median, lines for throughput and percentage gain', () => {
    expect(averageChart(resultsFixture, group).data.every((trace) => trace.type === 'bar')).toBe(true);
    for (const chart of [throughputChart(resultsFixture, group), gainChart(resultsFixture, group)]) {
      expect(chart.data.every((trace) => trace.type === 'scatter' && (trace as { mode: string }).mode === 'lines+markers')).toBe(true);
    }
  });

  it("draws one period's repetitions in order, one line per arm (g1 … g10)", () => {
    const chart = periodTrialsChart(resultsFixture, group, 9);
    expect(chart.data.map((trace) => trace.name)).toEqual(['https-h1', 'h2', 'h3']);
    const h2 = chart.data[1] as { x: number[]; y: number[] };
    expect(h2.x).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(h2.y).toEqual(group.arms['h2']?.series_ms[2]);
    expect(chart.layout.xaxis?.dtick).toBe(1);
  });

  it('leaves the repetition ticks to Plotly when a period has hundreds of repetitions', () => {
    const many: ResultGroup = {
      ...group,
      arms: Object.fromEntries<ResultGroup['arms'][string]>(
        Object.entries(group.arms).map(([arm, stats]) => [
          arm,
          { ...stats, series_ms: stats.series_ms.map((times) => Array.from({ length: 162 }, (_, i) => times[i % times.length] ?? 1)) },
        ]),
      ),
    };
    const chart = periodTrialsChart(resultsFixture, many, 9);
    expect((chart.data[1] as { x: number[] }).x).toHaveLength(162);
    expect(chart.layout.xaxis?.dtick).toBeUndefined();
    expect(chart.layout.xaxis?.tickformat).toBe('d');
  });
});
