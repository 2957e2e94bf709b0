import type { Annotations, Data, Layout } from 'plotly.js';
import type { Analysis, ComparisonResults, PhaseRow } from '@/lib/api-types';
import { formatMs, formatNumber } from '@/utils/format';
import { armsBarMarker } from './arm-style';
import type { ChartSpec } from './build-charts';
import type { GroupKey } from './build-analysis-charts';

const GRID = '#eef0f3';

const finite = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** Arms in the comparison's order (unknown labels last). */
function ordered(arms: readonly string[], present: Iterable<string>): string[] {
  const set = new Set(present);
  const known = arms.filter((arm) => set.has(arm));
  return [...known, ...[...set].filter((arm) => !known.includes(arm))];
}

// ——— phase breakdown ———

/** The phases of a request, in the order they happen (apps.results.derive.PHASES; PhaseRow has `<phase>_ms`, `<phase>_n`). */
export const PHASE_KEYS = ['dns', 'connect', 'tls', 'ttfb', 'download'] as const;
export type PhaseKey = (typeof PHASE_KEYS)[number];

export const PHASE_LABELS: Record<PhaseKey, string> = {
  dns: 'DNS',
  connect: 'Connect',
  tls: 'TLS',
  ttfb: 'TTFB',
  download: 'Download',
};

/** Phase colors (not arm colors: the bars are arms, the segments phases); cool = setup, warm = transfer. */
const PHASE_COLORS: Record<PhaseKey, string> = {
  dns: '#94a3b8',
  connect: '#7c9fd6',
  tls: '#6366f1',
  ttfb: '#f59e0b',
  download: '#10b981',
};

/** Why a phase occurred in only some requests. */
const PARTIAL_REASON: Record<PhaseKey, string> = {
  dns: 'uncached lookups only',
  connect: 'new connections only',
  tls: 'new connections only',
  ttfb: 'the others had no first byte',
  download: 'the others had no body',
};

export function phaseRows(analysis: Analysis, key: GroupKey): PhaseRow[] {
  // Analyses stored before the phase breakdown existed have no `phases`.
  return (analysis.phases ?? []).filter((row) => row.device === key.device && row.profile === key.profile && row.n > 0);
}

export function hasPhases(analysis: Analysis, key: GroupKey): boolean {
  return phaseRows(analysis, key).length > 0;
}

/** "TLS 1.8 ms (in 12 of 180 requests: new connections only)"; "TTFB 42 ms (in all 180 requests)". */
export function phaseHover(row: PhaseRow, phase: PhaseKey): string {
  const label = PHASE_LABELS[phase];
  const count = row[`${phase}_n`];
  const n = formatNumber(row.n);
  if (count >= row.n) return `${label} ${formatMs(row[`${phase}_ms`])} (in all ${n} requests)`;
  return `${label} ${formatMs(row[`${phase}_ms`])} (in ${formatNumber(count)} of ${n} requests: ${PARTIAL_REASON[phase]})`;
}

/** Median request time of the arm on the group (the `requests` section), to mark on the bars. */
function medianTotal(analysis: Analysis, arm: string, key: GroupKey): number | null {
  const row = analysis.requests.find(
    (r) => r.arm === arm && r.device === key.device && r.profile === key.profile && r.metric === 'total_ms',
  );
  return finite(row?.median_ms) ? row.median_ms : null;
}

/**
 * One horizontal stacked bar per arm (first arm on top): the median of each phase, with a
 * diamond at the arm's median request time. Medians of phases don't add up to the median
 * total (setup phases only happen on new connections), which the card's note says.
 */
export function phaseChart(results: ComparisonResults, analysis: Analysis, key: GroupKey): ChartSpec {
  const rows = phaseRows(analysis, key);
  const arms = ordered(results.arms, rows.map((row) => row.arm));
  const byArm = new Map(rows.map((row) => [row.arm, row]));
  const data: Data[] = PHASE_KEYS.filter((phase) => rows.some((row) => finite(row[`${phase}_ms`]))).map((phase) => {
    const values = arms.map((arm) => {
      const value = byArm.get(arm)?.[`${phase}_ms`];
      return finite(value) ? value : null;
    });
    return {
      type: 'bar',
      orientation: 'h',
      name: PHASE_LABELS[phase],
      y: arms,
      x: values,
      text: arms.map((arm) => {
        const row = byArm.get(arm);
        return row ? phaseHover(row, phase) : '';
      }),
      textposition: 'none',
      marker: { color: PHASE_COLORS[phase], line: { color: '#ffffff', width: 1 } },
      hovertemplate: '<b>%{y}</b><br>%{text}<extra></extra>',
    };
  });
  const totals = arms.map((arm) => medianTotal(analysis, arm, key));
  if (totals.some(finite)) {
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: 'median request time',
      y: arms,
      x: totals,
      orientation: 'h',
      marker: { symbol: 'diamond', size: 11, color: '#111827', line: { color: '#ffffff', width: 1.5 } },
      hovertemplate: '<b>%{y}</b><br>median request time %{x:.1f} ms<extra></extra>',
    });
  }
  return {
    data,
    layout: {
      barmode: 'stack',
      bargap: 0.35,
      // At least the other cards' height, so the grid's rows line up.
      height: Math.max(340, 130 + 48 * arms.length),
      margin: { l: 96, r: 16, t: 40, b: 48 },
      xaxis: { title: { text: 'Median of each phase (ms)' }, gridcolor: GRID, zerolinecolor: '#cbd5e1', rangemode: 'tozero' },
      yaxis: {
        type: 'category',
        autorange: 'reversed',
        tickvals: arms,
        ticktext: arms.map((arm) => (arm === results.baseline_arm ? `<b>${arm}</b>` : arm)),
        ticks: '',
      },
      legend: { traceorder: 'normal', font: { size: 11 } },
      hovermode: 'closest',
    },
  };
}

// ——— per-device small multiples ———

/** Devices of the comparison that ran on this network profile, in the groups' order. */
export function devicesOn(results: ComparisonResults, profile: string): string[] {
  return [...new Set(results.groups.filter((g) => g.network_profile === profile).map((g) => g.device))];
}

type DeviceMedian = { median: number | null; p90: number | null; n: number | null };

function deviceMedian(
  results: ComparisonResults,
  analysis: Analysis | null,
  arm: string,
  device: string,
  profile: string,
): DeviceMedian {
  const row = analysis?.requests.find(
    (r) => r.arm === arm && r.device === device && r.profile === profile && r.metric === 'total_ms',
  );
  if (row) {
    return { median: finite(row.median_ms) ? row.median_ms : null, p90: finite(row.p90_ms) ? row.p90_ms : null, n: row.n };
  }
  const stats = results.groups.find((g) => g.device === device && g.network_profile === profile)?.requests[arm];
  return {
    median: finite(stats?.median_ms) ? stats.median_ms : null,
    p90: finite(stats?.p90_ms) ? stats.p90_ms : null,
    n: stats?.n ?? null,
  };
}

export const DEVICE_COLUMNS = 3;

/**
 * Small multiples: one bar chart per device (grid of up to three columns) of the median
 * request time per arm on one network profile, on a shared y scale so devices compare.
 */
export function devicesChart(results: ComparisonResults, analysis: Analysis | null, profile: string): ChartSpec {
  const devices = devicesOn(results, profile);
  const columns = Math.min(DEVICE_COLUMNS, Math.max(devices.length, 1));
  const rows = Math.ceil(devices.length / columns);
  const data: Data[] = [];
  const annotations: Partial<Annotations>[] = [];
  const layout: Partial<Layout> & Record<string, unknown> = {};
  const gap = 0.06;
  const rowGap = 0.16;
  const width = (1 - gap * (columns - 1)) / columns;
  const height = (1 - rowGap * (rows - 1)) / rows;
  let max = 0;
  devices.forEach((device, index) => {
    const suffix = index === 0 ? '' : String(index + 1);
    const column = index % columns;
    const row = Math.floor(index / columns);
    const x0 = column * (width + gap);
    const y1 = 1 - row * (height + rowGap);
    const group = results.groups.find((g) => g.device === device && g.network_profile === profile);
    const arms = ordered(results.arms, Object.keys(group?.arms ?? {}).concat(Object.keys(group?.requests ?? {})));
    const stats = arms.map((arm) => deviceMedian(results, analysis, arm, device, profile));
    for (const s of stats) if (s.median !== null) max = Math.max(max, s.median);
    data.push({
      type: 'bar',
      name: device,
      showlegend: false,
      x: arms,
      y: stats.map((s) => s.median),
      xaxis: `x${suffix}`,
      yaxis: `y${suffix}`,
      text: stats.map((s) => formatMs(s.median)),
      textposition: 'outside',
      cliponaxis: false,
      customdata: stats.map((s) => [formatMs(s.p90), s.n === null ? '–' : formatNumber(s.n)]),
      marker: armsBarMarker(results.arms, arms),
      hovertemplate: `<b>%{x}</b> on ${device}<br>median %{text}, p90 %{customdata[0]}<br>%{customdata[1]} requests<extra></extra>`,
    });
    layout[`xaxis${suffix}`] = {
      domain: [x0, x0 + width],
      anchor: `y${suffix}`,
      type: 'category',
      tickfont: { size: 11 },
    };
    layout[`yaxis${suffix}`] = {
      domain: [Math.max(0, y1 - height), y1],
      anchor: `x${suffix}`,
      gridcolor: GRID,
      zerolinecolor: '#cbd5e1',
      rangemode: 'tozero',
      ...(index === 0 ? {} : { matches: 'y' }),
      ...(column === 0 ? { title: { text: 'Median request (ms)', font: { size: 11 } } } : { showticklabels: false }),
    };
    annotations.push({
      text: `<b>${device}</b>`,
      xref: 'paper',
      yref: 'paper',
      x: x0 + width / 2,
      y: y1,
      xanchor: 'center',
      yanchor: 'bottom',
      yshift: 4,
      showarrow: false,
      font: { size: 12 },
    });
  });
  // Room above the tallest bar for its label, on the shared scale.
  if (max > 0 && layout.yaxis) (layout.yaxis as Record<string, unknown>).range = [0, max * 1.18];
  return {
    data,
    layout: {
      ...layout,
      height: Math.max(340, 60 + rows * 250), // .plot is at least 340 px tall
      margin: { l: 64, r: 16, t: 28, b: 32 },
      showlegend: false,
      bargap: 0.35,
      annotations,
    },
  };
}
