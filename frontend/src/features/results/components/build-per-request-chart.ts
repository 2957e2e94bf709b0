import type { Data } from 'plotly.js';
import type { ComparisonResults, ResultGroup } from '@/lib/api-types';
import { formatMs } from '@/utils/format';
import { armBarMarker } from './arm-style';
import type { ChartSpec } from './build-charts';

export type PerRequest = NonNullable<ResultGroup['per_request']>;

const ROW_PX = 16;

/** One horizontal bar per request and arm (median request time), the list read top to bottom. */
export function perRequestChart(results: ComparisonResults, perRequest: PerRequest): ChartSpec {
  const arms = results.arms.filter((arm) => perRequest.arms[arm]);
  // Names repeat when a list fetches the same path twice; the index keeps every row its own.
  const labels = perRequest.names.map((name, index) => (name.startsWith(String(index).padStart(2, '0')) ? name : `${index} ${name}`));
  const data: Data[] = arms.map((arm) => {
    const stats = perRequest.arms[arm];
    const medians = (stats?.median_ms ?? []).map((value) => (typeof value === 'number' ? value : null));
    return {
      type: 'bar',
      orientation: 'h',
      name: arm,
      y: labels,
      x: medians,
      marker: armBarMarker(results.arms, arm),
      text: medians.map((value) => formatMs(value)),
      customdata: (stats?.p90_ms ?? []).map((value, index) => [formatMs(value), stats?.n[index] ?? 0, stats?.errors[index] ?? 0]),
      hovertemplate: `<b>${arm}</b> · %{y}<br>median %{text}, p90 %{customdata[0]}<br>%{customdata[1]} requests, %{customdata[2]} errors<extra></extra>`,
      textposition: 'none',
    };
  });
  return {
    data,
    layout: {
      barmode: 'group',
      bargap: 0.25,
      height: Math.max(260, 80 + labels.length * arms.length * ROW_PX),
      margin: { l: 260, r: 20, t: 10, b: 50 },
      xaxis: { title: { text: 'Median request time (ms)' }, gridcolor: '#eef0f3', rangemode: 'tozero' },
      yaxis: { autorange: 'reversed', automargin: true, type: 'category' },
    },
  };
}

/** Per request, the challenger's median against the baseline's, in percent (null where either is missing). */
export function perRequestChange(perRequest: PerRequest, arm: string, baseline: string): (number | null)[] {
  const mine = perRequest.arms[arm]?.median_ms ?? [];
  const base = perRequest.arms[baseline]?.median_ms ?? [];
  return perRequest.names.map((_, index) => {
    const a = mine[index];
    const b = base[index];
    return typeof a === 'number' && typeof b === 'number' && b > 0 ? ((a - b) / b) * 100 : null;
  });
}
