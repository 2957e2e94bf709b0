import type { Data, Layout } from 'plotly.js';
import type { ArmSeries, ComparisonResults, ResultGroup } from '@/lib/api-types';
import { formatMs, formatPercent, formatRate, pickRateUnit } from '@/utils/format';
import { armBarMarker, armColor, armLine, armStyle } from './arm-style';

// One style per arm (colour, marker, dash, hatching), stable across every chart of a comparison.
export { armColor, armStyle };

export type ChartSpec = { data: Data[]; layout: Partial<Layout> };

const PERIOD_AXIS_TITLE = 'Requests per series (period)';

function periodAxis(periods: readonly number[]): Partial<Layout['xaxis']> {
  return {
    title: { text: PERIOD_AXIS_TITLE },
    type: 'category',
    tickmode: 'array',
    tickvals: periods.map(String),
    gridcolor: '#eef0f3',
  };
}

function valueAxis(title: string, extra: Partial<Layout['yaxis']> = {}): Partial<Layout['yaxis']> {
  return { title: { text: title }, gridcolor: '#eef0f3', zerolinecolor: '#cbd5e1', rangemode: 'tozero', ...extra };
}

/** Arms present in this group, in the comparison's arm order. */
export function groupArms(results: ComparisonResults, group: ResultGroup): string[] {
  const ordered = results.arms.filter((arm) => arm in group.arms);
  const extra = Object.keys(group.arms).filter((arm) => !ordered.includes(arm));
  return [...ordered, ...extra];
}

/** How the workload issued each series: "sequential", "parallel 4", "all" (older analyses: sequential). */
export function concurrencyOf(group: ResultGroup): string {
  return group.concurrency ?? 'sequential';
}

/** What a series time is under this concurrency, for chart notes and axis titles. */
export function seriesTimeMeaning(group: ResultGroup): string {
  const concurrency = concurrencyOf(group);
  return concurrency === 'sequential'
    ? 'Requests issued one after another; series time = sum of the request times.'
    : `Requests issued concurrently (${concurrency}: HTTP/1.1 opens up to that many connections per host, ` +
        'HTTP/2 and HTTP/3 multiplex them on one); series time = first request issued → last response completed.';
}

/** The legend's title: which concurrency the arms' series were issued with. */
function concurrencyLegend(group: ResultGroup): Partial<Layout['legend']> {
  return { title: { text: `concurrency: ${concurrencyOf(group)}` } };
}

function seriesOf(group: ResultGroup, arm: string): ArmSeries | undefined {
  return group.arms[arm];
}

const nums = (values: readonly (number | null)[] | undefined): (number | null)[] =>
  (values ?? []).map((value) => (typeof value === 'number' && Number.isFinite(value) ? value : null));

function timeChart(
  results: ComparisonResults,
  group: ResultGroup,
  pick: (series: ArmSeries) => readonly (number | null)[],
  statistic: string,
): ChartSpec {
  const periods = group.periods.map(String);
  const data: Data[] = groupArms(results, group).map((arm) => {
    const values = nums(pick(seriesOf(group, arm) as ArmSeries));
    return {
      type: 'bar',
      name: arm,
      x: periods,
      y: values,
      marker: armBarMarker(results.arms, arm),
      text: values.map((value) => formatMs(value)),
      hovertemplate: `<b>${arm}</b><br>%{x} requests: %{text} (${statistic})<extra></extra>`,
      textposition: 'none',
    };
  });
  return {
    data,
    layout: {
      barmode: 'group',
      bargap: 0.2,
      xaxis: periodAxis(group.periods),
      yaxis: valueAxis(`${statistic[0]?.toUpperCase()}${statistic.slice(1)} series time (ms)`),
      legend: concurrencyLegend(group),
    },
  };
}

export function averageChart(results: ComparisonResults, group: ResultGroup): ChartSpec {
  return timeChart(results, group, (series) => series.avg_ms, 'average');
}

export function medianChart(results: ComparisonResults, group: ResultGroup): ChartSpec {
  return timeChart(results, group, (series) => series.median_ms, 'median');
}

export function throughputChart(results: ComparisonResults, group: ResultGroup): ChartSpec {
  const arms = groupArms(results, group);
  const all = arms.flatMap((arm) => nums(seriesOf(group, arm)?.throughput_bps)).filter((v): v is number => v !== null);
  const { unit, divisor } = pickRateUnit(all.length ? Math.max(...all) : 0);
  const periods = group.periods.map(String);
  const data: Data[] = arms.map((arm) => {
    const values = nums(seriesOf(group, arm)?.throughput_bps);
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: periods,
      y: values.map((value) => (value === null ? null : value / divisor)),
      ...armLine(results.arms, arm, { width: 2.5, size: 8 }),
      text: values.map((value) => formatRate(value)),
      hovertemplate: `<b>${arm}</b><br>%{x} requests: %{text}<extra></extra>`,
    };
  });
  return {
    data,
    layout: { xaxis: periodAxis(group.periods), yaxis: valueAxis(`Throughput (${unit})`) },
  };
}

export function gainChart(results: ComparisonResults, group: ResultGroup): ChartSpec {
  const periods = group.periods.map(String);
  const data: Data[] = groupArms(results, group)
    .filter((arm) => arm !== results.baseline_arm)
    .map((arm) => {
      const values = nums(seriesOf(group, arm)?.gain_pct);
      // A line per arm, as the seed document's percentage-gain figure (seeds/000).
      return {
        type: 'scatter',
        mode: 'lines+markers',
        name: arm,
        x: periods,
        y: values,
        ...armLine(results.arms, arm, { width: 2.5, size: 8 }),
        text: values.map((value) => formatPercent(value)),
        hovertemplate: `<b>${arm}</b> vs ${results.baseline_arm}<br>%{x} requests: %{text}<extra></extra>`,
      };
    });
  return {
    data,
    layout: {
      xaxis: periodAxis(group.periods),
      yaxis: valueAxis(`Gain over ${results.baseline_arm} (%)`, { rangemode: 'normal' }),
      showlegend: true,
      legend: concurrencyLegend(group),
    },
  };
}

/** Every repetition's series time, as one box per arm and period with all points shown. */
/**
 * Up to this many repetitions in a period, the series chart draws each one as a point over its
 * box, as the seed figures do (12 per period). Beyond it the points would only blur into a band
 * behind the box, yet each is an SVG node: a thousand per arm made this one chart cost more to
 * draw than the rest of the page. The box then shows the spread and marks the outliers, and the
 * repetitions chart below it shows every repetition of a period in order.
 */
export const MAX_POINTS_PER_BOX = 40;

export function seriesChart(results: ComparisonResults, group: ResultGroup): ChartSpec {
  const arms = groupArms(results, group);
  const mostRepetitions = Math.max(
    0,
    ...arms.flatMap((arm) => (seriesOf(group, arm)?.series_ms ?? []).map((repetitions) => repetitions.filter((value) => Number.isFinite(value)).length)),
  );
  const boxpoints = mostRepetitions <= MAX_POINTS_PER_BOX ? 'all' : 'outliers';
  const data: Data[] = arms.map((arm) => {
    const perPeriod = seriesOf(group, arm)?.series_ms ?? [];
    const x: string[] = [];
    const y: number[] = [];
    perPeriod.forEach((repetitions, index) => {
      const period = group.periods[index];
      if (period === undefined) return;
      for (const value of repetitions) {
        if (typeof value === 'number' && Number.isFinite(value)) {
          x.push(String(period));
          y.push(value);
        }
      }
    });
    return {
      type: 'box',
      name: arm,
      x,
      y,
      boxpoints,
      jitter: 0.4,
      pointpos: 0,
      marker: { color: armColor(results.arms, arm), symbol: armStyle(results.arms, arm).symbol, size: 5, opacity: 0.75 },
      line: { width: 1.5 },
      hovertemplate: `<b>${arm}</b><br>%{x} requests: %{y:.1f} ms<extra></extra>`,
    };
  });
  return {
    data,
    layout: {
      boxmode: 'group',
      xaxis: periodAxis(group.periods),
      yaxis: valueAxis(
        concurrencyOf(group) === 'sequential'
          ? 'Series time per repetition (ms)'
          : 'Series time (ms), first request → last',
      ),
      legend: concurrencyLegend(group),
    },
  };
}

/** What the series chart's reader needs told when it draws the boxes without their points. */
export function seriesChartNote(chart: ChartSpec): string | undefined {
  const pointsHidden = chart.data.some((trace) => (trace as { boxpoints?: unknown }).boxpoints === 'outliers');
  return pointsHidden
    ? `More than ${MAX_POINTS_PER_BOX} repetitions per period: each box shows their spread and marks the outliers; ` +
        'the repetitions chart below shows every repetition of one period in order.'
    : undefined;
}

/** Up to this many repetitions, the period-trials chart labels every one. */
const MAX_TICK_PER_REPETITION = 30;

/**
 * One period's repetitions in order, one line per arm (seeds/000's g1 … g10: each period's
 * 12 trials of both stacks); null when the period has no series times.
 */
export function periodTrialsChart(results: ComparisonResults, group: ResultGroup, period: number): ChartSpec {
  const index = group.periods.indexOf(period);
  const data: Data[] = groupArms(results, group).map((arm) => {
    const times = nums(seriesOf(group, arm)?.series_ms[index]);
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: arm,
      x: times.map((_, i) => i + 1),
      y: times,
      ...armLine(results.arms, arm),
      hovertemplate: `<b>${arm}</b><br>repetition %{x}: %{y:.1f} ms<extra></extra>`,
    };
  });
  const repetitions = Math.max(0, ...data.map((trace) => (trace as { x: number[] }).x.length));
  return {
    data,
    layout: {
      xaxis: {
        title: { text: `Repetition (${period} requests per series)` },
        // A tick per repetition reads well for the seed's dozen; for hundreds, Plotly would lay
        // out (and measure) hundreds of labels, the page's slowest draw: let it pick integers.
        ...(repetitions <= MAX_TICK_PER_REPETITION ? { dtick: 1 } : { tickformat: 'd' }),
        gridcolor: '#eef0f3',
      },
      yaxis: valueAxis('Series time (ms)'),
      legend: concurrencyLegend(group),
    },
  };
}

/** Mean of the per-period gains of an arm: the headline number for the summary strip. */
export function meanGain(group: ResultGroup, arm: string): number | null {
  const values = nums(group.arms[arm]?.gain_pct).filter((value): value is number => value !== null);
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
}
