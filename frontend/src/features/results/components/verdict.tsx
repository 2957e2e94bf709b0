import type { ArmComparison, Analysis, VerdictOutcome } from '../api/analysis-types';
import { formatChangeWithCi, formatMs, formatP, formatSigned } from '@/utils/format';
import { armColor } from './build-charts';

const OUTCOME_LABELS: Record<VerdictOutcome, string> = {
  regression: 'Regression',
  improvement: 'Improvement',
  equivalent: 'Equivalent',
  inconclusive: 'Inconclusive',
};

const METRIC_LABELS: Record<string, string> = { total_ms: 'total time', ttfb_ms: 'time to first byte' };
export const metricLabel = (metric: string): string => METRIC_LABELS[metric] ?? metric;

/** The gate's rule (verdicts.py `overall_outcome`): the worst outcome decides. */
export function overallOutcome(outcomes: readonly VerdictOutcome[]): VerdictOutcome | null {
  if (outcomes.length === 0) return null;
  for (const outcome of ['regression', 'inconclusive', 'improvement'] as const) {
    if (outcomes.includes(outcome)) return outcome;
  }
  return 'equivalent';
}

/** Comparisons with the gate metric first (total_ms by default), then arm order, then device and profile. */
export function orderedComparisons(
  analysis: Analysis,
  arms: readonly string[],
  gateMetric: string = 'total_ms',
): ArmComparison[] {
  const metricRank = (metric: string) =>
    metric === gateMetric ? 0 : metric === 'total_ms' ? 1 : metric === 'ttfb_ms' ? 2 : 3;
  const armRank = (arm: string) => {
    const index = arms.indexOf(arm);
    return index < 0 ? arms.length : index;
  };
  return [...analysis.comparisons].sort(
    (a, b) =>
      metricRank(a.metric) - metricRank(b.metric) ||
      a.metric.localeCompare(b.metric) ||
      armRank(a.arm) - armRank(b.arm) ||
      a.device_class.localeCompare(b.device_class) ||
      a.profile.localeCompare(b.profile),
  );
}

/**
 * The metric the banner speaks for: the spec's gate metric (spec.gate.metric, total_ms by
 * default, as the CI gate), else total_ms, else the first one compared.
 */
export function primaryMetric(analysis: Analysis, gateMetric: string = 'total_ms'): string | null {
  for (const metric of [gateMetric, 'total_ms']) {
    if (analysis.comparisons.some((c) => c.metric === metric)) return metric;
  }
  return analysis.comparisons[0]?.metric ?? null;
}

export function OutcomeBadge({ outcome }: { outcome: VerdictOutcome }) {
  return (
    <span className={`badge verdict-badge verdict-${outcome}`} data-outcome={outcome}>
      {OUTCOME_LABELS[outcome] ?? outcome}
    </span>
  );
}

function headline(outcome: VerdictOutcome, baseline: string, marginPct: number): string {
  const margin = `${marginPct.toLocaleString('en-US')} %`;
  switch (outcome) {
    case 'regression':
      return `Slower than ${baseline} beyond the ${margin} margin somewhere.`;
    case 'improvement':
      return `Faster than ${baseline} beyond the ${margin} margin, with no regression.`;
    case 'equivalent':
      return `Within ±${margin} of ${baseline} everywhere.`;
    default:
      return 'Not decided yet: some comparisons need more blocks.';
  }
}

type VerdictProps = {
  analysis: Analysis;
  arms: readonly string[];
  /** spec.gate.metric of the comparison; total_ms when the spec has no gate. */
  gateMetric?: string;
};

/** The CI gate's answer for the gate metric, with the engine's summary line per comparison. */
export function VerdictBanner({ analysis, arms, gateMetric = 'total_ms' }: VerdictProps) {
  const metric = primaryMetric(analysis, gateMetric);
  const rows = orderedComparisons(analysis, arms, gateMetric).filter((c) => c.metric === metric);
  const outcome = overallOutcome(rows.map((c) => c.verdict.outcome));
  if (!metric || !outcome) return null;
  const alpha = analysis.config?.alpha;
  const configuredPct = analysis.config?.margin_pct ?? 5;
  // The 2 ms floor widens the margin on fast requests; say so, or "within ±5 %" misleads.
  const widestPct = Math.max(...rows.map((c) => (c.verdict.margin ?? 0) * 100));
  const widened = widestPct > configuredPct + 0.05;
  return (
    <section
      className={`card verdict-banner verdict-banner-${outcome}`}
      data-testid="verdict-banner"
      data-outcome={outcome}
      data-metric={metric}
      aria-label="Verdict"
    >
      <div className="verdict-banner-head">
        <OutcomeBadge outcome={outcome} />
        <div>
          <h2>{headline(outcome, analysis.baseline_arm, analysis.config?.margin_pct ?? 5)}</h2>
          <p className="muted small">
            Median {metricLabel(metric)} of each arm against {analysis.baseline_arm}; the worst outcome decides
            {alpha !== undefined ? ` (α = ${alpha}, Holm-corrected)` : ''}.
            {metric !== gateMetric && ` The gate's metric (${metricLabel(gateMetric)}) was not compared.`}
            {widened &&
              ` The 2 ms floor widens the margin to ±${Math.round(widestPct).toLocaleString('en-US')} % here: these medians are too short for ${configuredPct} % to be meaningful.`}
          </p>
        </div>
      </div>
      <ul className="verdict-lines">
        {rows.map((c) => (
          <li key={`${c.arm}/${c.device_class}/${c.profile}`}>
            <OutcomeBadge outcome={c.verdict.outcome} />
            <code className="verdict-summary">{c.summary}</code>
            {c.verdict.outcome === 'inconclusive' && <span className="verdict-reason">{c.verdict.reason}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Every arm × metric × device class × profile comparison with its effect sizes. */
export function EffectTable({ analysis, arms, gateMetric = 'total_ms' }: VerdictProps) {
  const rows = orderedComparisons(analysis, arms, gateMetric);
  if (rows.length === 0) return null;
  return (
    <section className="card" aria-label="Effect sizes">
      <h3>Effect sizes against {analysis.baseline_arm}</h3>
      <div className="table-wrap">
        <table className="table table-numeric table-compact effect-table" data-testid="effect-table">
          <thead>
            <tr>
              <th scope="col">Arm</th>
              <th scope="col">Metric</th>
              <th scope="col">Device · profile</th>
              <th scope="col">Verdict</th>
              <th scope="col">Median</th>
              <th scope="col">Change [95 % CI]</th>
              <th scope="col">Speedup</th>
              <th scope="col">Cliff&apos;s δ</th>
              <th scope="col">Cohen&apos;s d (log)</th>
              <th scope="col">p (Holm)</th>
              <th scope="col">Blocks</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr
                key={`${c.arm}/${c.metric}/${c.device_class}/${c.profile}`}
                data-arm={c.arm}
                data-metric={c.metric}
                data-profile={c.profile}
                title={c.verdict.reason}
              >
                <th scope="row" className="nowrap">
                  <span className="swatch" style={{ background: armColor(arms, c.arm) }} aria-hidden="true" />
                  {c.arm}
                </th>
                <td className="nowrap">{metricLabel(c.metric)}</td>
                <td>
                  <span className="nowrap">{c.device_class}</span>
                  <br />
                  <span className="muted small">{c.profile}</span>
                </td>
                <td>
                  <OutcomeBadge outcome={c.verdict.outcome} />
                </td>
                <td className="nowrap">
                  {formatMs(c.median_candidate_ms)} <span className="muted">vs {formatMs(c.median_baseline_ms)}</span>
                </td>
                <td className="nowrap" data-col="change">
                  {formatChangeWithCi(c.change_pct, c.change_ci95_pct)}
                </td>
                <td className="nowrap">{c.speedup === null ? '–' : `${c.speedup.toFixed(2)}×`}</td>
                <td className="nowrap" data-col="cliffs">
                  {formatSigned(c.cliffs_delta)} <span className="muted">{c.cliffs_label}</span>
                </td>
                <td className="nowrap" data-col="cohens">
                  {formatSigned(c.cohens_d_log)} <span className="muted">{c.cohens_label}</span>
                </td>
                <td className="nowrap" data-col="p">
                  {formatP(c.p_blocks_holm)}
                </td>
                <td className="nowrap">
                  {Number.isInteger(c.blocks_per_device) ? c.blocks_per_device : c.blocks_per_device.toFixed(1)}{' '}
                  <span className="muted">× {c.devices === 1 ? '1 device' : `${c.devices} devices`}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="chart-note">
        Change is the ratio of medians − 1 with a hierarchical bootstrap CI (devices → blocks → requests). Cliff&apos;s δ
        thresholds 0.147 / 0.33 / 0.474; Cohen&apos;s d on log latency. p: Wilcoxon signed-rank on per-block log-ratios,
        Holm-corrected per arm. Hover a row for the verdict&apos;s reason.
      </p>
    </section>
  );
}
