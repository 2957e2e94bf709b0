import { describe, expect, it } from 'vitest';
import {
  analysisOf,
  delaySweepResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
} from '@/testing/fixtures';
import type { ResultGroup } from '@/lib/api-types';
import { ARM_COLORS, ARM_DASHES, ARM_PATTERNS, ARM_SYMBOLS, armStyle } from './arm-style';
import { averageChart, gainChart, medianChart, periodTrialsChart, seriesChart, throughputChart } from './build-charts';
import { delayAddedChart, delayMeasuredChart, distributionChart, groupKeyOf, payloadChart } from './build-analysis-charts';
import { devicesChart } from './build-phase-charts';
import { perRequestChart } from './build-per-request-chart';

type Styled = {
  name?: string;
  type?: string;
  line?: { color?: string; dash?: string };
  marker?: { color?: string | string[]; symbol?: string; pattern?: { shape?: string | string[] } };
};

const arms = resultsFixture.arms;
const group = resultsFixture.groups[0] as ResultGroup;
const traces = (data: unknown[]) => data as Styled[];

describe('arm style', () => {
  it('gives each of the up to 8 arms its own colour, marker, dash and hatching (dashes repeat after 6)', () => {
    const styles = Array.from({ length: 8 }, (_, i) => armStyle(ARM_COLORS.map((_, j) => `arm${j}`), `arm${i}`));
    for (const key of ['color', 'symbol', 'pattern'] as const) {
      expect(new Set(styles.map((style) => style[key])).size).toBe(8);
    }
    expect(new Set(styles.map((style) => style.dash)).size).toBe(ARM_DASHES.length);
    // Every pair of arms differs in more than colour.
    for (let i = 0; i < 8; i++) {
      for (let j = i + 1; j < 8; j++) {
        expect(styles[i]?.symbol).not.toBe(styles[j]?.symbol);
        expect(styles[i]?.pattern).not.toBe(styles[j]?.pattern);
      }
    }
  });

  it('uses the Okabe–Ito palette, the first arm solid-filled and solid-lined', () => {
    expect(ARM_COLORS.slice(0, 6)).toEqual(['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9']);
    expect(armStyle(['a', 'b'], 'a')).toEqual({ color: '#0072B2', symbol: 'circle', dash: 'solid', pattern: '' });
    expect(armStyle(['a', 'b'], 'b')).toEqual({ color: '#E69F00', symbol: 'square', dash: 'dash', pattern: '/' });
  });

  it('keeps an arm its style across charts, whatever arms a chart leaves out', () => {
    const gain = traces(gainChart(resultsFixture, group).data); // the baseline arm is left out
    const throughput = traces(throughputChart(resultsFixture, group).data);
    expect(gain[0]?.name).toBe('h2');
    expect(gain[0]?.marker).toEqual(throughput[1]?.marker);
    expect(gain[0]?.line).toEqual(throughput[1]?.line);
  });

  it('hatches the bars of every bar chart, one pattern per arm', () => {
    for (const chart of [averageChart, medianChart]) {
      for (const trace of traces(chart(resultsFixture, group).data)) {
        const style = armStyle(arms, trace.name as string);
        expect(trace.type).toBe('bar');
        expect(trace.marker?.color).toBe(style.color);
        expect(trace.marker?.pattern?.shape).toBe(style.pattern);
      }
    }
    const analysis = analysisOf(payloadSweepResultsFixture);
    const devices = traces(devicesChart(payloadSweepResultsFixture, analysis, 'lte').data)[0];
    expect(devices?.marker?.pattern?.shape).toEqual(
      payloadSweepResultsFixture.arms.map((arm) => armStyle(payloadSweepResultsFixture.arms, arm).pattern),
    );
    const perRequest = { names: ['a'], arms: { [arms[0] as string]: { median_ms: [1], p90_ms: [2], n: [1], errors: [0] } } };
    const bars = traces(perRequestChart(resultsFixture, perRequest).data);
    expect(bars[0]?.marker?.pattern?.shape).toBe(ARM_PATTERNS[0]);
  });

  it('marks and dashes every line chart, one symbol and dash per arm', () => {
    const delay = delaySweepResultsFixture;
    const delayAnalysis = analysisOf(delay);
    const delayKey = groupKeyOf(delay.groups[0] as ResultGroup);
    const payload = payloadSweepResultsFixture;
    const payloadKey = groupKeyOf(payload.groups[0] as ResultGroup);
    const charts = [
      { results: resultsFixture, data: throughputChart(resultsFixture, group).data },
      { results: resultsFixture, data: periodTrialsChart(resultsFixture, group, 9).data },
      { results: resultsFixture, data: gainChart(resultsFixture, group).data },
      { results: delay, data: delayAddedChart(delay, delayAnalysis, delayKey).data },
      { results: delay, data: delayMeasuredChart(delay, delayAnalysis, delayKey).data },
      { results: payload, data: payloadChart(payload, analysisOf(payload), payloadKey).data },
      { results: resultsFixture, data: distributionChart(resultsFixture, analysisOf(resultsFixture), groupKeyOf(group)).data },
    ];
    for (const { results, data } of charts) {
      const lines = traces(data).filter((trace) => results.arms.includes(trace.name as string));
      expect(lines.length).toBeGreaterThan(1);
      for (const trace of lines) {
        const style = armStyle(results.arms, trace.name as string);
        expect(trace.line).toMatchObject({ color: style.color, dash: style.dash });
        expect(trace.marker?.symbol).toBe(style.symbol);
      }
      expect(new Set(lines.map((trace) => trace.marker?.symbol)).size).toBe(lines.length);
    }
  });

  it('gives the box plot points the arm marker', () => {
    const boxes = traces(seriesChart(resultsFixture, group).data);
    expect(boxes.map((trace) => trace.marker?.symbol)).toEqual(ARM_SYMBOLS.slice(0, 3));
  });
});
