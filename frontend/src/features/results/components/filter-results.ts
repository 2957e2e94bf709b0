import type { Analysis, ComparisonResults, ResultGroup } from '@/lib/api-types';

/**
 * The comparison page's filters, applied in the browser to the aggregates the results API
 * returns (never raw samples). Device and network profile pick the group (the results
 * panel's picker); arms and periods narrow what every chart of it draws.
 */
export type ResultFilters = {
  /** Arms to draw; the comparison's arm order (and so each arm's style) is kept. */
  arms: readonly string[];
  /** Series periods (requests per series) from..to, inclusive; null: all. */
  periods: readonly [number, number] | null;
};

const keep = <T>(values: readonly T[] | undefined, indices: number[]): T[] =>
  indices.map((index) => values?.[index]).filter((value): value is T => value !== undefined);

function pickKeys<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key)));
}

export function filterGroup(group: ResultGroup, filters: ResultFilters): ResultGroup {
  const { periods } = filters;
  const indices = group.periods.map((_, index) => index).filter((index) => {
    const period = group.periods[index] as number;
    return periods === null || (period >= periods[0] && period <= periods[1]);
  });
  const arms: ResultGroup['arms'] = Object.fromEntries(
    Object.entries(pickKeys(group.arms, filters.arms)).map(([arm, series]) => [
      arm,
      periods === null
        ? series
        : {
            ...series,
            avg_ms: keep(series.avg_ms, indices),
            median_ms: keep(series.median_ms, indices),
            throughput_bps: keep(series.throughput_bps, indices),
            gain_pct: keep(series.gain_pct, indices),
            n: keep(series.n, indices),
            series_ms: keep(series.series_ms, indices),
          },
    ]),
  );
  const perRequest = group.per_request
    ? { ...group.per_request, arms: pickKeys(group.per_request.arms, filters.arms) }
    : group.per_request;
  return {
    ...group,
    periods: periods === null ? group.periods : keep(group.periods, indices),
    arms,
    requests: pickKeys(group.requests, filters.arms),
    ...(group.per_request !== undefined ? { per_request: perRequest } : {}),
  };
}

type Row = { arm?: unknown; period?: unknown };

function filterRows<T extends Row>(rows: readonly T[] | undefined, filters: ResultFilters): T[] {
  return (rows ?? []).filter((row) => {
    if (typeof row.arm === 'string' && !filters.arms.includes(row.arm)) return false;
    const { periods } = filters;
    if (periods !== null && typeof row.period === 'number') return row.period >= periods[0] && row.period <= periods[1];
    return true;
  });
}

export function filterAnalysis(analysis: Analysis, filters: ResultFilters): Analysis {
  return {
    ...analysis,
    descriptive: filterRows(analysis.descriptive, filters),
    series: filterRows(analysis.series, filters),
    first_vs_rest: filterRows(analysis.first_vs_rest, filters),
    delay_sweep: filterRows(analysis.delay_sweep, filters),
    payload_sweep: filterRows(analysis.payload_sweep, filters),
    comparisons: filterRows(analysis.comparisons, filters),
    requests: filterRows(analysis.requests, filters),
    ...(analysis.phases !== undefined ? { phases: filterRows(analysis.phases, filters) } : {}),
  };
}

/** The results with only the filtered arms and periods; `arms` (the style order) unchanged. */
export function filterResults(results: ComparisonResults, filters: ResultFilters): ComparisonResults {
  return {
    ...results,
    groups: results.groups.map((group) => filterGroup(group, filters)),
    analysis: results.analysis ? filterAnalysis(results.analysis, filters) : results.analysis,
  };
}

/** Every period of the comparison's series groups, ascending. */
export function periodsOf(results: ComparisonResults): number[] {
  return [...new Set(results.groups.flatMap((group) => group.periods))].sort((a, b) => a - b);
}
