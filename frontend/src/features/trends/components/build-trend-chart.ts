import type { Data, Layout } from 'plotly.js';
import { formatDayMonth, formatMs } from '@/utils/format';
import type { Trend, TrendPoint, TrendVerdict } from '../api/get-trend';

/** How each verdict is drawn: a SHAPE of its own (colour-blind and greyscale safe), then a colour. */
export const VERDICT_MARKERS: Record<TrendVerdict | 'none', { symbol: string; color: string; label: string }> = {
  regression: { symbol: 'triangle-up', color: '#d92d20', label: 'Regression' },
  improvement: { symbol: 'triangle-down', color: '#079455', label: 'Improvement' },
  equivalent: { symbol: 'circle', color: '#0086c9', label: 'Equivalent' },
  inconclusive: { symbol: 'diamond-open', color: '#dc6803', label: 'Inconclusive' },
  baseline: { symbol: 'square', color: '#475467', label: 'Baseline arm' },
  none: { symbol: 'x-thin-open', color: '#667085', label: 'Not compared' },
};

export const verdictKey = (point: TrendPoint): TrendVerdict | 'none' => point.verdict ?? 'none';

const STATISTIC_LABELS: Record<string, string> = { median: 'Median', mean: 'Mean', p90: 'p90', p95: 'p95', p99: 'p99' };
const METRIC_LABELS: Record<string, string> = {
  total_ms: 'total time',
  ttfb_ms: 'time to first byte',
  series_ms: 'series time',
  page_load_ms: 'page load',
};

export const trendValueLabel = (trend: Pick<Trend, 'statistic' | 'metric'>): string =>
  `${STATISTIC_LABELS[trend.statistic] ?? trend.statistic} ${METRIC_LABELS[trend.metric] ?? trend.metric}`;

/** What a point is called on the x axis: its commit, else its version, else its date. */
export function pointLabel(point: TrendPoint): string {
  if (point.commit) return point.commit.slice(0, 8);
  if (point.version) return point.version;
  return formatDayMonth(new Date(point.created_at));
}

/**
 * One trace through every point in the trend's order: its markers carry the verdict's shape
 * and colour, its error bars the 95 % CI (medians); the legend lists the verdicts present
 * through empty traces, so `data-points` counts each comparison once.
 */
export function buildTrendChart(trend: Trend): { data: Data[]; layout: Partial<Layout> } {
  const points = trend.points;
  const x = points.map((_, i) => i);
  const keys = points.map(verdictKey);
  const hasCi = points.some((p) => p.ci95);
  const main: Data = {
    type: 'scatter',
    mode: 'lines+markers',
    name: trendValueLabel(trend),
    showlegend: false,
    x,
    y: points.map((p) => p.value),
    line: { color: '#98a2b3', width: 1.5 },
    marker: {
      size: 13,
      symbol: keys.map((k) => VERDICT_MARKERS[k].symbol),
      color: keys.map((k) => VERDICT_MARKERS[k].color),
      line: { width: 1.5, color: keys.map((k) => VERDICT_MARKERS[k].color) },
    },
    ...(hasCi
      ? {
          error_y: {
            type: 'data' as const,
            symmetric: false,
            array: points.map((p) => (p.ci95 ? (p.ci95[1] ?? p.value) - p.value : 0)),
            arrayminus: points.map((p) => (p.ci95 ? p.value - (p.ci95[0] ?? p.value) : 0)),
            color: '#98a2b3',
            thickness: 1.2,
            width: 4,
          },
        }
      : {}),
    customdata: points.map((p) => [
      p.comparison_name,
      p.commit ?? '–',
      p.version ?? '–',
      VERDICT_MARKERS[verdictKey(p)].label,
      p.ci95 ? `[${formatMs(p.ci95[0])}, ${formatMs(p.ci95[1])}]` : '',
      `${p.device_model}${p.stand_in ? ' (simulated phone)' : ''} / ${p.profile}`,
      p.comparison_id, // read by a click on the point (point-links.tsx)
    ]),
    hovertemplate:
      '<b>%{customdata[0]}</b><br>commit %{customdata[1]} · version %{customdata[2]}<br>' +
      '%{y:.1f} ms %{customdata[4]}<br>%{customdata[3]} · %{customdata[5]}<extra></extra>',
  };
  const present = [...new Set(keys)];
  const legend: Data[] = present.map((key) => ({
    type: 'scatter',
    mode: 'markers',
    name: VERDICT_MARKERS[key].label,
    x: [null],
    y: [null],
    marker: { size: 12, symbol: VERDICT_MARKERS[key].symbol, color: VERDICT_MARKERS[key].color },
    hoverinfo: 'skip',
  }));
  const layout: Partial<Layout> = {
    height: 380,
    xaxis: {
      title: { text: trend.order === 'commit' ? 'Comparisons by commit (first measured first)' : 'Comparisons, oldest first' },
      tickmode: 'array',
      tickvals: x,
      ticktext: points.map(pointLabel),
      zeroline: false,
    },
    yaxis: { title: { text: `${trendValueLabel(trend)} of ${trend.arm} (ms)` }, rangemode: 'tozero' },
    hovermode: 'closest',
  };
  return { data: [main, ...legend], layout };
}
