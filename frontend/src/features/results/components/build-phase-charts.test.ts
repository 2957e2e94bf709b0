import { describe, expect, it } from 'vitest';
import type { Data } from 'plotly.js';
import {
  analysisOf,
  apiResultsFixture,
  delaySweepResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
} from '@/testing/fixtures';
import type { Analysis, PhaseRow } from '@/lib/api-types';
import { countPoints } from './plot';
import { devicesChart, devicesOn, hasPhases, phaseChart, phaseHover, phaseRows } from './build-phase-charts';

const api = analysisOf(apiResultsFixture);
const apiKey = { device: 'pixel-8-a', profile: 'lte' };

type Trace = Data & { name?: string; x?: unknown[]; y?: unknown[]; text?: unknown[]; orientation?: string };

describe('phase breakdown', () => {
  it('stacks one horizontal bar per arm, in arm order, with a segment per phase that occurred', () => {
    expect(hasPhases(api, apiKey)).toBe(true);
    expect(hasPhases(api, { device: 'pixel-8-a', profile: 'wifi' })).toBe(false);
    const chart = phaseChart(apiResultsFixture, api, apiKey);
    const traces = chart.data as Trace[];
    expect(traces.map((t) => t.name)).toEqual(['DNS', 'Connect', 'TLS', 'TTFB', 'Download', 'median request time']);
    expect(chart.layout.barmode).toBe('stack');
    for (const trace of traces.slice(0, 5)) {
      expect(trace.orientation).toBe('h');
      expect(trace.y).toEqual(['h1', 'h2', 'h3']);
    }
    // h3 (QUIC) reports its handshake as connect and has no TLS segment.
    const tls = traces[2] as Trace;
    expect(tls.x?.[2]).toBeNull();
    expect(typeof tls.x?.[0]).toBe('number');
    // 5 phases × 3 arms, less h3's TLS, plus 3 median markers.
    expect(countPoints(chart.data)).toBe(5 * 3 - 1 + 3);
  });

  it('says how many of the requests had each phase on hover', () => {
    const row = phaseRows(api, apiKey)[0] as PhaseRow;
    expect(phaseHover(row, 'tls')).toBe(`TLS ${row.tls_ms?.toFixed(1)} ms (in ${row.tls_n} of ${row.n} requests: new connections only)`);
    expect(phaseHover(row, 'ttfb')).toMatch(new RegExp(`^TTFB [\\d.]+ ms \\(in all ${row.n} requests\\)$`));
    const partial: PhaseRow = { ...row, n: 180, tls_n: 12, tls_ms: 1.84 };
    expect(phaseHover(partial, 'tls')).toBe('TLS 1.8 ms (in 12 of 180 requests: new connections only)');
    const texts = (phaseChart(apiResultsFixture, api, apiKey).data[2] as Trace).text;
    expect(texts?.[0]).toBe(phaseHover(row, 'tls'));
  });

  it('leaves out phases no request had (a delay sweep on one warm connection)', () => {
    const delay = analysisOf(delaySweepResultsFixture);
    const chart = phaseChart(delaySweepResultsFixture, delay, { device: 'pixel-8-android-14', profile: 'none' });
    expect((chart.data as Trace[]).map((t) => t.name)).toEqual(['TTFB', 'Download', 'median request time']);
  });

  it('treats a missing phases section (an analysis stored before it existed) as no data', () => {
    const { phases: _unused, ...older }: Analysis = analysisOf(resultsFixture);
    expect(phaseRows(older, { device: 'host-lab-1', profile: 'none' })).toEqual([]);
    expect(hasPhases(older, { device: 'host-lab-1', profile: 'none' })).toBe(false);
  });
});

describe('per-device small multiples', () => {
  it('draws one panel per device on a shared y scale, with arm-colored bars', () => {
    const analysis = analysisOf(payloadSweepResultsFixture);
    expect(devicesOn(payloadSweepResultsFixture, 'lte')).toEqual(['pixel-8-a', 'pixel-8-b', 'pixel-8-c']);
    const chart = devicesChart(payloadSweepResultsFixture, analysis, 'lte');
    const traces = chart.data as (Trace & { xaxis?: string; yaxis?: string })[];
    expect(traces.map((t) => t.yaxis)).toEqual(['y', 'y2', 'y3']);
    expect(traces.every((t) => (t.x as string[]).join() === 'build-2.2,build-2.2.1')).toBe(true);
    expect(countPoints(chart.data)).toBe(3 * 2);
    const layout = chart.layout as Record<string, { matches?: string; domain?: number[] }>;
    expect(layout.yaxis2?.matches).toBe('y');
    expect(layout.yaxis3?.matches).toBe('y');
    // Medians are the `requests` section's.
    const median = analysis?.requests.find(
      (r) => r.arm === 'build-2.2' && r.device === 'pixel-8-b' && r.metric === 'total_ms',
    )?.median_ms;
    expect(traces[1]?.y?.[0]).toBe(median);
    expect((chart.layout.annotations ?? []).map((a) => a.text)).toEqual([
      '<b>pixel-8-a</b>',
      '<b>pixel-8-b</b>',
      '<b>pixel-8-c</b>',
    ]);
  });

  it('wraps into rows of three', () => {
    const many = {
      ...payloadSweepResultsFixture,
      groups: [0, 1, 2, 3].map((i) => ({ ...(payloadSweepResultsFixture.groups[0] as never as object), device: `d${i}` })),
    } as typeof payloadSweepResultsFixture;
    const chart = devicesChart(many, null, 'lte');
    const layout = chart.layout as Record<string, { domain?: number[] }>;
    expect(chart.data).toHaveLength(4);
    expect(layout.yaxis4?.domain?.[1]).toBeLessThan(layout.yaxis?.domain?.[0] ?? 0);
  });
});
