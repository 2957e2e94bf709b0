import type { Data, Layout, PlotMarker, Shape } from 'plotly.js';
import type { Analysis, ComparisonResults, DescriptiveRow, ResultGroup } from '@/lib/api-types';
import { formatBytes, formatMs, formatNumber } from '@/utils/format';
import { armBarMarker, armLine, armStyle } from './arm-style';
import { armColor, type ChartSpec } from './build-charts';

/** Which device × network profile a chart is drawn for (the group selector's choice). */
export type GroupKey = { device: string; profile: string };

export const groupKeyOf = (group: ResultGroup): GroupKey => ({ device: group.device, profile: group.network_profile });

const inGroup = (row: { device: string; profile: string }, key: GroupKey) =>
  row.device === key.device && row.profile === key.profile;

const finite = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

const orNull = (value: number | null | undefined): number | null => (finite(value) ? value : null);

const GRID = '#eef0f3';

function axis(title: string, extra: Partial<Layout['xaxis']> = {}): Partial<Layout['xaxis']> {
  return { title: { text: title }, gridcolor: GRID, zerolinecolor: '#cbd5e1', ...extra };
}

/** Arms of the rows, in the comparison's arm order (unknown labels last). */
function armsOf(results: ComparisonResults, rows: readonly { arm: string }[]): string[] {
  const present = new Set(rows.map((row) => row.arm));
  const ordered = results.arms.filter((arm) => present.has(arm));
  return [...ordered, ...[...present].filter((arm) => !ordered.includes(arm))];
}

// ——— delay sweep (seeds/002) ———

export function hasDelaySweep(analysis: Analysis, key: GroupKey): boolean {
  return analysis.delay_sweep.some((row) => inGroup(row, key));
}

function delayRows(analysis: Analysis, key: GroupKey, arm: string) {
  return analysis.delay_sweep
    .filter((row) => inGroup(row, key) && row.arm === arm)
    .sort((a, b) => a.known_delay_ms - b.known_delay_ms);
}

/** Measured median latency against the injected server delay, with the y = x line of "nothing added". */
export function delayMeasuredChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = analysis.delay_sweep.filter((row) => inGroup(row, key));
  const arms = armsOf(results, rows);
  const delays = rows.map((row) => row.known_delay_ms);
  const maxDelay = delays.length ? Math.max(...delays) : 0;
  const data: Data[] = arms.map((arm) => {
    const armRows = delayRows(analysis, key, arm);
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: armRows.map((row) => row.known_delay_ms),
      y: armRows.map((row) => orNull(row.measured_median_ms)),
      ...armLine(results.arms, arm, { size: 6 }),
      hovertemplate: `<b>${arm}</b><br>server delay %{x} ms<br>measured median %{y:.1f} ms<extra></extra>`,
    };
  });
  const identity: Partial<Shape> = {
    type: 'line',
    x0: 0,
    y0: 0,
    x1: maxDelay,
    y1: maxDelay,
    line: { color: '#98a2b3', width: 1.5, dash: 'dot' },
  };
  return {
    data,
    layout: {
      xaxis: axis('Known server delay (ms)'),
      yaxis: axis('Measured median latency (ms)', { rangemode: 'tozero' }),
      shapes: [identity],
    },
  };
}

/** Measured − known delay per step: what the client, OS and network add (the sawtooth). */
export function delayAddedChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = analysis.delay_sweep.filter((row) => inGroup(row, key));
  const data: Data[] = armsOf(results, rows).map((arm) => {
    const armRows = delayRows(analysis, key, arm);
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: armRows.map((row) => row.known_delay_ms),
      y: armRows.map((row) => orNull(row.added_median_ms)),
      customdata: armRows.map((row) => [orNull(row.added_p90_ms), row.n]),
      ...armLine(results.arms, arm, { size: 6 }),
      hovertemplate:
        `<b>${arm}</b><br>server delay %{x} ms<br>added: median %{y:.1f} ms, p90 %{customdata[0]:.1f} ms` +
        '<br>%{customdata[1]} trials<extra></extra>',
    };
  });
  return {
    data,
    layout: {
      xaxis: axis('Known server delay (ms)'),
      yaxis: axis('Added latency: measured − known (ms)', { rangemode: 'tozero' }),
    },
  };
}

// ——— payload sweep (seeds/004) ———

type PayloadRow = Analysis['payload_sweep'][number];

/** The stall detector's reasons, in words (backend analysis/stalls.py). */
const STALL_REASON_TEXT: Record<string, string> = {
  above_expected: 'slower than RTT, handshakes, slow start and rate explain',
  slower_than_larger_size: 'slower than a larger size (delayed-ACK signature)',
};

/** Rings the bands the backend's stall detector flagged (not "above 2 × RTT": on a fast path every size is). */
const isStall = (row: PayloadRow) => row.stall === true;

function payloadText(row: PayloadRow): string {
  const expected = finite(row.expected_ms) ? `, expected ${formatMs(row.expected_ms)}` : '';
  return `${formatBytes(row.resp_bytes)}: median ${formatMs(row.median_ms)}${expected}`;
}

export function hasPayloadSweep(analysis: Analysis, key: GroupKey): boolean {
  // One response size is no sweep (an API workload's single body size).
  const sizes = new Set(
    analysis.payload_sweep.filter((row) => inGroup(row, key) && finite(row.median_rtt_multiple)).map((r) => r.resp_bytes),
  );
  return sizes.size >= 2;
}

/** Latency ÷ baseline RTT against response size (log x); stalled bands are ringed in red, with why. */
export function payloadChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = analysis.payload_sweep.filter((row) => inGroup(row, key));
  const arms = armsOf(results, rows);
  const data: Data[] = arms.map((arm) => {
    const armRows = rows.filter((row) => row.arm === arm).sort((a, b) => a.resp_bytes - b.resp_bytes);
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: armRows.map((row) => row.resp_bytes),
      y: armRows.map((row) => orNull(row.median_rtt_multiple)),
      text: armRows.map(payloadText),
      line: armLine(results.arms, arm).line,
      marker: {
        symbol: armStyle(results.arms, arm).symbol,
        size: armRows.map((row) => (isStall(row) ? 11 : 7)),
        line: { color: armRows.map((row) => (isStall(row) ? '#d92d20' : 'rgba(0,0,0,0)')), width: 2 },
      },
      hovertemplate: `<b>${arm}</b><br>%{text}<br>%{y:.2f} × RTT<extra></extra>`,
    };
  });
  const stallRows = rows.filter((row) => isStall(row) && finite(row.median_rtt_multiple));
  if (stallRows.length) {
    // A legend entry and hover for the flagged bands, saying why each is flagged.
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: 'stall',
      x: stallRows.map((row) => row.resp_bytes),
      y: stallRows.map((row) => row.median_rtt_multiple),
      text: stallRows.map(
        (row) =>
          `${row.arm}, ${payloadText(row)}<br>${(row.stall_reasons ?? []).map((r) => STALL_REASON_TEXT[r] ?? r).join('; ')}`,
      ),
      marker: { size: 20, color: 'rgba(217, 45, 32, 0.14)', line: { color: 'rgba(217, 45, 32, 0.5)', width: 1 } },
      hovertemplate: '%{text}<br>%{y:.2f} × RTT<extra>stall</extra>',
    });
  }
  return {
    data,
    layout: {
      xaxis: axis('Response size (bytes, log scale)', { type: 'log', tickformat: '~s' }),
      yaxis: axis('Median latency ÷ baseline RTT', { rangemode: 'tozero' }),
    },
  };
}

// ——— first request vs the rest (seeds/003) ———

export function hasFirstVsRest(analysis: Analysis, key: GroupKey): boolean {
  return analysis.first_vs_rest.some((row) => inGroup(row, key) && row.first && row.rest);
}

/** Median of the first request on a connection next to the median of the rest, per arm. */
export function firstRestChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = analysis.first_vs_rest.filter((row) => inGroup(row, key) && row.metric === 'total_ms');
  const arms = armsOf(results, rows);
  const byArm = new Map(rows.map((row) => [row.arm, row]));
  const colors = arms.map((arm) => armColor(results.arms, arm));
  const side = (which: 'first' | 'rest', name: string, opacity: number, hatched: boolean): Data => ({
    type: 'bar',
    name,
    x: arms,
    y: arms.map((arm) => orNull(byArm.get(arm)?.[which]?.median_ms)),
    customdata: arms.map((arm) => {
      const stats = byArm.get(arm)?.[which];
      return [orNull(stats?.mean_ms), stats?.n ?? 0];
    }),
    text: arms.map((arm) => formatMs(byArm.get(arm)?.[which]?.median_ms)),
    textposition: 'outside',
    cliponaxis: false,
    // "The rest" is hatched so the legend tells the two apart whatever the arm colors.
    marker: {
      color: colors,
      opacity,
      line: { color: colors, width: 1.5 },
      ...(hatched ? { pattern: { shape: '/', fgcolor: colors, fgopacity: 0.9, size: 7, solidity: 0.25 } } : {}),
    } as Partial<PlotMarker>,
    hovertemplate: `<b>%{x}</b> · ${name}<br>median %{y:.1f} ms, mean %{customdata[0]:.1f} ms<br>%{customdata[1]} requests<extra></extra>`,
  });
  return {
    data: [side('first', 'first request on a connection', 1, false), side('rest', 'the rest', 0.55, true)],
    layout: {
      barmode: 'group',
      bargap: 0.3,
      xaxis: axis('Arm', { type: 'category' }),
      yaxis: axis('Median request time (ms)', { rangemode: 'tozero' }),
    },
  };
}

/** Handshake cost per arm: first − rest median, for the chart's note. */
export function handshakeCosts(analysis: Analysis, key: GroupKey): { arm: string; ms: number }[] {
  return analysis.first_vs_rest
    .filter((row) => inGroup(row, key) && row.metric === 'total_ms' && finite(row.first_minus_rest_median_ms))
    .map((row) => ({ arm: row.arm, ms: row.first_minus_rest_median_ms as number }));
}

// ——— latency distribution ———

const QUANTILES: { key: keyof DescriptiveRow; label: string; p: number }[] = [
  { key: 'min_ms', label: 'min', p: 0 },
  { key: 'median_ms', label: 'median', p: 0.5 },
  { key: 'p90_ms', label: 'p90', p: 0.9 },
  { key: 'p95_ms', label: 'p95', p: 0.95 },
  { key: 'p99_ms', label: 'p99', p: 0.99 },
  { key: 'max_ms', label: 'max', p: 1 },
];

/** Request statistics of the group with every period folded (the `requests` section). */
function requestRows(analysis: Analysis, key: GroupKey): DescriptiveRow[] {
  const folded = analysis.requests.filter((row) => inGroup(row, key) && row.metric === 'total_ms' && row.n > 0);
  if (folded.length) return folded;
  // Older analyses without `requests`: the descriptive rows of non-series workloads are the same.
  return analysis.descriptive.filter(
    (row) => inGroup(row, key) && row.metric === 'total_ms' && row.period === null && row.n > 0,
  );
}

export function hasDistribution(analysis: Analysis, key: GroupKey): boolean {
  return requestRows(analysis, key).length > 0;
}

/**
 * Per arm, the request-time ECDF through the quantiles the backend sends (min, median,
 * p90, p95, p99, max: the browser never gets raw samples), with the median's 95 % CI.
 */
export function distributionChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = requestRows(analysis, key);
  const data: Data[] = [];
  for (const arm of armsOf(results, rows)) {
    const row = rows.find((candidate) => candidate.arm === arm);
    if (!row) continue;
    const points = QUANTILES.map((q) => ({ ...q, ms: row[q.key] as number | null | undefined })).filter((q) =>
      finite(q.ms),
    );
    const color = armColor(results.arms, arm);
    const ci = row.median_ci95_ms;
    const median = orNull(row.median_ms);
    const hasCi = ci && finite(ci[0]) && finite(ci[1]) && median !== null;
    data.push({
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: points.map((q) => q.ms as number),
      y: points.map((q) => q.p),
      text: points.map((q) => q.label),
      ...armLine(results.arms, arm),
      hovertemplate: `<b>${arm}</b><br>%{text}: %{x:.1f} ms<br>${formatNumber(row.n)} requests<extra></extra>`,
    });
    if (hasCi) {
      data.push({
        type: 'scatter',
        mode: 'markers',
        name: `${arm} median 95 % CI`,
        showlegend: false,
        x: [median],
        y: [0.5],
        error_x: {
          type: 'data',
          symmetric: false,
          array: [(ci[1] as number) - median],
          arrayminus: [median - (ci[0] as number)],
          color,
          thickness: 2,
          width: 6,
        },
        marker: { size: 1, color },
        hovertemplate: `<b>${arm}</b> median 95 % CI<br>${formatMs(ci[0])} – ${formatMs(ci[1])}<extra></extra>`,
      });
    }
  }
  return {
    data,
    layout: {
      xaxis: axis('Request time (ms)', { rangemode: 'tozero' }),
      yaxis: axis('Fraction of requests at or below', {
        range: [0, 1.04],
        tickvals: [0, 0.25, 0.5, 0.75, 0.9, 1],
        ticktext: ['0', '25 %', 'median', '75 %', 'p90', '100 %'],
      }),
    },
  };
}

// ——— one arm across network profiles ———

/** Network profiles of the comparison, in the groups' order. */
export function profilesOf(results: ComparisonResults): string[] {
  return [...new Set(results.groups.map((group) => group.network_profile))];
}

/** One arm's median request time per network profile on one device (bars, labelled). */
export function profilesChart(
  results: ComparisonResults,
  analysis: Analysis | null,
  arm: string,
  device: string,
): ChartSpec {
  const profiles = profilesOf(results).filter((profile) =>
    results.groups.some((group) => group.device === device && group.network_profile === profile),
  );
  const medians = profiles.map((profile) => {
    const fromAnalysis = analysis?.requests.find(
      (row) => row.arm === arm && row.device === device && row.profile === profile && row.metric === 'total_ms',
    );
    if (fromAnalysis) return orNull(fromAnalysis.median_ms);
    const group = results.groups.find((g) => g.device === device && g.network_profile === profile);
    return orNull(group?.requests[arm]?.median_ms);
  });
  return {
    data: [
      {
        type: 'bar',
        name: arm,
        x: profiles,
        y: medians,
        text: medians.map((value) => formatMs(value)),
        textposition: 'outside',
        cliponaxis: false,
        marker: armBarMarker(results.arms, arm),
        hovertemplate: `<b>${arm}</b> on %{x}<br>median request %{text}<extra></extra>`,
      },
    ],
    layout: {
      xaxis: axis('Network profile', { type: 'category' }),
      yaxis: axis('Median request time (ms)', { rangemode: 'tozero' }),
      showlegend: false,
      bargap: 0.45,
    },
  };
}

const PROFILE_DASHES = ['solid', 'dash', 'dot', 'dashdot', 'longdash', 'longdashdot'] as const;

/** One arm's average series time per period, one line per network profile (series workloads). */
export function profilesSeriesChart(results: ComparisonResults, arm: string, device: string): ChartSpec {
  const groups = results.groups.filter((group) => group.device === device && group.periods.length > 0);
  const periods = [...new Set(groups.flatMap((group) => group.periods))].sort((a, b) => a - b);
  const color = armColor(results.arms, arm);
  const data: Data[] = groups.map((group, index) => {
    const series = group.arms[arm];
    const byPeriod = new Map(group.periods.map((period, i) => [period, orNull(series?.avg_ms[i])]));
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: group.network_profile,
      x: periods.map(String),
      y: periods.map((period) => byPeriod.get(period) ?? null),
      line: { color, width: 2, dash: PROFILE_DASHES[index % PROFILE_DASHES.length] },
      marker: { size: 6, symbol: index },
      hovertemplate: `<b>${arm}</b> on ${group.network_profile}<br>%{x} requests: %{y:.0f} ms average<extra></extra>`,
    };
  });
  return {
    data,
    layout: {
      xaxis: axis('Requests per series (period)', { type: 'category' }),
      yaxis: axis('Average series time (ms, log scale)', { type: 'log' }),
    },
  };
}

export function hasSeries(results: ComparisonResults, device: string): boolean {
  return results.groups.some((group) => group.device === device && group.periods.length > 0);
}
