import { describe, expect, it } from 'vitest';
import {
  analysisOf,
  apiResultsFixture,
  delaySweepResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
} from '@/testing/fixtures';
import type { ComparisonResults, ResultGroup } from '@/lib/api-types';
import { countPoints } from './plot';
import {
  delayAddedChart,
  delayMeasuredChart,
  distributionChart,
  firstRestChart,
  groupKeyOf,
  handshakeCosts,
  hasDelaySweep,
  hasFirstVsRest,
  hasPayloadSweep,
  payloadChart,
  profilesChart,
  profilesOf,
  profilesSeriesChart,
} from './build-analysis-charts';

const setup = (results: ComparisonResults) => {
  const analysis = analysisOf(results);
  const group = results.groups[0] as ResultGroup;
  return { results, analysis, key: groupKeyOf(group), group };
};

type Trace = { name?: string; x: (number | string)[]; y: (number | null)[]; type?: string };
const title = (axis: unknown) => (axis as { title: { text: string } }).title.text;

describe('delay sweep charts', () => {
  const { results, analysis, key } = setup(delaySweepResultsFixture);
  const steps = new Set(analysis.delay_sweep.map((row) => row.known_delay_ms)).size;

  it('draws added latency per known delay step, one line per arm', () => {
    expect(hasDelaySweep(analysis, key)).toBe(true);
    const chart = delayAddedChart(results, analysis, key);
    expect(chart.data.map((trace) => trace.name)).toEqual(['h1', 'h2']);
    expect(countPoints(chart.data)).toBe(steps * 2);
    const trace = chart.data[0] as Trace;
    expect(trace.x).toEqual([...trace.x].sort((a, b) => Number(a) - Number(b)));
    expect(title(chart.layout.yaxis)).toMatch(/measured − known/);
    // The Android device's +200 ms step is in the data, not smoothed away.
    const android = trace.y as number[];
    expect(Math.max(...android) - Math.min(...android)).toBeGreaterThan(150);
  });

  it('draws measured against known delay with the y = x reference', () => {
    const chart = delayMeasuredChart(results, analysis, key);
    expect(countPoints(chart.data)).toBe(steps * 2);
    expect(chart.layout.shapes?.[0]).toMatchObject({ type: 'line', x0: 0, y0: 0, x1: 1000, y1: 1000 });
  });

  it('is absent for a series comparison', () => {
    const series = setup(resultsFixture);
    expect(hasDelaySweep(series.analysis, series.key)).toBe(false);
  });
});

describe('payload sweep chart', () => {
  const { results, analysis, key } = setup(payloadSweepResultsFixture);

  it('plots latency ÷ RTT on a log size axis and rings the bands the stall detector flagged', () => {
    expect(hasPayloadSweep(analysis, key)).toBe(true);
    // The detector's verdicts, set here: the chart shows them, it does not judge.
    const stalled = new Set([35_000, 200_000]);
    const judged = {
      ...analysis,
      payload_sweep: analysis.payload_sweep.map((row) => {
        const stall = row.arm === 'build-2.2' && stalled.has(row.resp_bytes);
        return {
          ...row,
          slow: true, // "above 2 × RTT" alone rings nothing
          stall,
          stall_reasons: stall ? (['above_expected', 'slower_than_larger_size'] as const).slice() : [],
          expected_ms: 50.5,
        };
      }),
    };
    const chart = payloadChart(results, judged, key);
    expect(chart.layout.xaxis?.type).toBe('log');
    const [baseline, fixed, stall] = chart.data as (Trace & { text: string[] })[];
    expect(baseline?.name).toBe('build-2.2');
    expect(fixed?.name).toBe('build-2.2.1');
    expect(stall?.name).toBe('stall');
    expect(stall?.x).toEqual([35_000, 200_000]);
    expect(stall?.text[0]).toContain('expected 50.5 ms');
    expect(stall?.text[0]).toContain('slower than a larger size (delayed-ACK signature)');
    expect(chart.data).toHaveLength(3);
  });

  it('rings nothing when the detector flagged nothing, however many × RTT', () => {
    const healthy = {
      ...analysis,
      payload_sweep: analysis.payload_sweep.map((row) => ({ ...row, slow: true, stall: false, stall_reasons: [] })),
    };
    expect(payloadChart(results, healthy, key).data).toHaveLength(2);
  });

  it('needs at least two sizes: a single API body size is no sweep', () => {
    const api = setup(apiResultsFixture);
    expect(api.analysis.payload_sweep.length).toBeGreaterThan(0);
    expect(hasPayloadSweep(api.analysis, api.key)).toBe(false);
  });
});

describe('first vs rest chart', () => {
  const { results, analysis, key } = setup(apiResultsFixture);

  it('groups the first request and the rest per arm, and reports the handshake cost', () => {
    expect(hasFirstVsRest(analysis, key)).toBe(true);
    const chart = firstRestChart(results, analysis, key);
    const [first, rest] = chart.data as Trace[];
    expect(first?.x).toEqual(['h1', 'h2', 'h3']);
    expect(countPoints(chart.data)).toBe(6);
    const row = analysis.first_vs_rest.find((r) => r.arm === 'h1');
    expect(first?.y[0]).toBe(row?.first?.median_ms);
    expect(rest?.y[0]).toBe(row?.rest?.median_ms);
    expect((first?.y[0] as number) > (rest?.y[0] as number)).toBe(true);
    expect(handshakeCosts(analysis, key).map((h) => h.arm)).toEqual(['h1', 'h2', 'h3']);
  });
});

describe('latency distribution chart', () => {
  it('draws each arm through its quantiles, with the median CI', () => {
    const { results, analysis, key } = setup(resultsFixture);
    const chart = distributionChart(results, analysis, key);
    const lines = (chart.data as Trace[]).filter((trace) => trace.name && !trace.name.includes('CI'));
    expect(lines.map((trace) => trace.name)).toEqual(['https-h1', 'h2', 'h3']);
    const h2 = analysis.requests.find((r) => r.arm === 'h2' && r.profile === key.profile && r.device === key.device);
    expect(lines[1]?.x).toEqual([h2?.min_ms, h2?.median_ms, h2?.p90_ms, h2?.p95_ms, h2?.p99_ms, h2?.max_ms]);
    expect(lines[1]?.y).toEqual([0, 0.5, 0.9, 0.95, 0.99, 1]);
    expect(chart.data).toHaveLength(6);
  });
});

describe('network profile comparison', () => {
  it('puts one arm side by side on every profile of the device', () => {
    const { results, analysis, group } = setup(resultsFixture);
    expect(profilesOf(results)).toEqual(['transatlantic', 'none']);
    const chart = profilesChart(results, analysis, 'h2', group.device);
    const bars = chart.data[0] as Trace;
    expect(bars.x).toEqual(['transatlantic', 'none']);
    const medians = ['transatlantic', 'none'].map(
      (profile) => analysis.requests.find((r) => r.arm === 'h2' && r.profile === profile)?.median_ms,
    );
    expect(bars.y).toEqual(medians);

    const series = profilesSeriesChart(results, 'h2', group.device);
    expect(series.data.map((trace) => trace.name)).toEqual(['transatlantic', 'none']);
    expect(countPoints(series.data)).toBe(group.periods.length * 2);
    expect(series.layout.yaxis?.type).toBe('log');
  });

  it('falls back to the groups when there is no analysis', () => {
    const { results, group } = setup(resultsFixture);
    const chart = profilesChart(results, null, 'h3', group.device);
    expect((chart.data[0] as Trace).y[0]).toBe(group.requests['h3']?.median_ms);
  });
});
