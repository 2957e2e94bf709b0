/**
 * The `analysis` member of `GET /api/v1/comparisons/{id}/results`. The OpenAPI schema
 * leaves it as free-form JSON; these types follow the statistics engine that produces it
 * (backend/apps/results/analysis: report.py `analyze_comparison`, descriptive.py,
 * series.py, connection.py, sweeps.py, compare.py, verdict.py) plus the `requests`
 * and `phases` sections added by apps/results/services.py (phases.py). NaN and ±inf arrive as null.
 */
import type { ComparisonResults } from '@/lib/api-types';

type Ms = number | null;

/** Rows are keyed by arm × device × network profile (the engine calls it `profile`). */
type Keyed = { arm: string; device: string; profile: string };

export type MetricName = 'total_ms' | 'ttfb_ms' | (string & {});

/** descriptive.py `describe`; a group where every request failed only has n = 0 and errors. */
export type DescriptiveRow = Keyed & {
  metric: MetricName;
  /** null: every period folded together (always so in `requests`). */
  period: number | null;
  n: number;
  errors: number;
  mean_ms?: Ms;
  median_ms?: Ms;
  median_ci95_ms?: [Ms, Ms];
  p90_ms?: Ms;
  p95_ms?: Ms;
  p99_ms?: Ms;
  stddev_ms?: Ms;
  min_ms?: Ms;
  max_ms?: Ms;
};

/** series.py `series_summary`: per profile × device × arm × period. */
export type SeriesRow = Keyed & {
  period: number;
  series: number;
  incomplete_series: number;
  average_ms: Ms;
  median_ms: Ms;
  times_ms: number[];
  throughput_bytes_per_s: Ms;
  gain_pct?: Ms;
  median_gain_pct?: Ms;
  speedup?: Ms;
};

export type ConnectionSide = {
  n: number;
  mean_ms: Ms;
  median_ms: Ms;
  bytes: number;
  throughput_bytes_per_s: Ms;
};

/** connection.py `first_vs_rest`: the first request on a connection vs the rest. */
export type FirstVsRestRow = Keyed & {
  metric: MetricName;
  first: ConnectionSide | null;
  rest: ConnectionSide | null;
  first_minus_rest_mean_ms: Ms;
  first_minus_rest_median_ms: Ms;
};

/** sweeps.py `delay_sweep`: measured − known server delay per step. */
export type DelaySweepRow = Keyed & {
  known_delay_ms: number;
  n: number;
  added_median_ms: Ms;
  added_mean_ms: Ms;
  added_p90_ms: Ms;
  measured_median_ms: Ms;
};

/** sweeps.py `payload_sweep`: latency ÷ the block's baseline RTT per response size. */
export type PayloadSweepRow = Keyed & {
  resp_bytes: number;
  n: number;
  median_ms: Ms;
  median_rtt_multiple: Ms;
  baseline_rtt_ms: Ms;
  /** Median above 2 × RTT; null without a baseline RTT. */
  slow: boolean | null;
  slower_than_next_size: boolean;
};

/** The phases of a request, in the order they happen (DESIGN §9 phase breakdown). */
export const PHASE_KEYS = ['dns', 'connect', 'tls', 'ttfb', 'download'] as const;
export type PhaseKey = (typeof PHASE_KEYS)[number];

/**
 * phases.py `phase_breakdown`: per arm × device × profile, over measured, successful
 * requests, the median of each phase (null when no request had it) and how many of the
 * `n` requests had it (a reused connection has no DNS, connect or TLS; a QUIC arm reports
 * its handshake as connect, with no TLS).
 */
export type PhaseRow = Keyed & { n: number } & { [K in PhaseKey as `${K}_ms`]: Ms } & {
  [K in PhaseKey as `${K}_n`]: number;
};

export type VerdictOutcome = 'regression' | 'improvement' | 'equivalent' | 'inconclusive';

/** verdict.py `Verdict`. */
export type Verdict = {
  outcome: VerdictOutcome;
  /** Effective relative margin on the ratio (0.05 = 5 %). */
  margin: number;
  alpha: number;
  reason: string;
  blocks_needed_per_device: number | null;
  additional_blocks_per_device: number | null;
};

export type CliffsLabel = 'negligible' | 'small' | 'medium' | 'large' | (string & {});
export type CohensLabel = 'negligible' | 'small' | 'medium' | 'large' | 'very large' | 'huge' | (string & {});

/** compare.py `ArmComparison`: one arm against the baseline arm. */
export type ArmComparison = {
  arm: string;
  baseline_arm: string;
  metric: MetricName;
  /** Devices are pooled by class (e.g. "Pixel 8"); a device is its own class by default. */
  device_class: string;
  profile: string;
  devices: number;
  blocks: number;
  blocks_per_device: number;
  n_candidate: number;
  n_baseline: number;
  median_candidate_ms: Ms;
  median_baseline_ms: Ms;
  /** median candidate / median baseline; < 1 is faster. */
  ratio: Ms;
  ratio_ci95: [Ms, Ms];
  ratio_ci90: [Ms, Ms];
  change_pct: Ms;
  change_ci95_pct: [Ms, Ms];
  gain_pct: Ms;
  speedup: Ms;
  p_blocks: Ms;
  p_blocks_holm: Ms;
  p_requests_mann_whitney: Ms;
  cliffs_delta: Ms;
  cliffs_label: CliffsLabel;
  cohens_d_log: Ms;
  cohens_label: CohensLabel;
  verdict: Verdict;
  summary: string;
};

export type VerdictConfig = {
  margin_pct: number;
  margin_floor_ms: number;
  alpha: number;
  min_abs_cliffs_delta: number;
  n_boot: number;
  seed: number;
  resample_requests: boolean;
};

/** report.py `analyze_comparison` + `requests` and `phases` (services.py). Empty sections are []. */
export type Analysis = {
  version: number;
  baseline_arm: string;
  config: VerdictConfig;
  samples: number;
  descriptive: DescriptiveRow[];
  series: SeriesRow[];
  first_vs_rest: FirstVsRestRow[];
  delay_sweep: DelaySweepRow[];
  payload_sweep: PayloadSweepRow[];
  comparisons: ArmComparison[];
  requests: DescriptiveRow[];
  phases: PhaseRow[];
};

const SECTIONS = [
  'descriptive',
  'series',
  'first_vs_rest',
  'delay_sweep',
  'payload_sweep',
  'comparisons',
  'requests',
  'phases',
] as const;

/**
 * The results' analysis with every section present (missing sections become []), or null
 * before the first analysis exists. Only the container shape is checked: the rows come
 * from the engine and are trusted as typed above.
 */
export function analysisOf(results: Pick<ComparisonResults, 'analysis'>): Analysis | null {
  const raw = results.analysis;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const record = raw as Record<string, unknown>;
  const analysis = { ...record } as Record<string, unknown>;
  for (const section of SECTIONS) {
    if (!Array.isArray(record[section])) analysis[section] = [];
  }
  return analysis as unknown as Analysis;
}
