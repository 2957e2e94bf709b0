import { DataTable } from '@/components/data-table';
import type {
  Analysis,
  ArmComparison,
  ArmVerdict,
  ComparisonVerdict,
  OverallOutcome,
  VerdictBeside,
  VerdictLook,
} from '@/lib/api-types';
import { capitalized, isPerRequest, metricWords } from '@/lib/gate-metrics';
import {
  formatChangeWithCi,
  formatFixed,
  formatMarginPct,
  formatMs,
  formatNumber,
  formatP,
  formatSigned,
} from '@/utils/format';
import { ArmSwatch } from './arm-swatch';

const OUTCOME_LABELS: Record<OverallOutcome, string> = {
  regression: 'Regression',
  improvement: 'Improvement',
  equivalent: 'Equivalent',
  inconclusive: 'Inconclusive',
  no_data: 'No data',
};

export const metricLabel = metricWords;

/**
 * The gate's metric in the server's words ("series time, periods 3–30", "per-request time"); a
 * verdict from a server before `metric_label` by its name in words.
 */
export function gateMetricLabel(gate: Pick<ComparisonVerdict['gate'], 'metric'> & { metric_label?: string }): string {
  return gate.metric_label || metricWords(gate.metric);
}

/**
 * Code-point order, the same in every browser and locale (these are ids and names, not prose), and
 * without `localeCompare`, whose first call loads ICU's collation data (utils/format.ts).
 */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Comparisons with the gate metric first (total_ms by default), then per-request time, the group
 * metrics and TTFB; within a metric in arm order, then device and profile, each pooled row with
 * the rows beneath it (devices, then periods).
 */
export function orderedComparisons(
  analysis: Analysis,
  arms: readonly string[],
  gateMetric: string = 'total_ms',
): ArmComparison[] {
  const metricRank = (metric: string) =>
    metric === gateMetric ? 0 : metric === 'total_ms' ? 1 : isPerRequest(metric) ? 3 : 2;
  return [...analysis.comparisons].sort(
    (a, b) =>
      metricRank(a.metric) - metricRank(b.metric) ||
      byText(a.metric, b.metric) ||
      armRank(arms, a.arm) - armRank(arms, b.arm) ||
      byText(a.device_class, b.device_class) ||
      byText(a.profile, b.profile) ||
      scopeRank(a.scope) - scopeRank(b.scope) ||
      byText(a.device ?? '', b.device ?? '') ||
      (a.period ?? -1) - (b.period ?? -1),
  );
}

/**
 * A device class's pooled row first, its per-device rows beneath, then its per-period rows (series
 * time); analyses before pooling have none, before version 2 no period rows.
 */
function scopeRank(scope: string | undefined): number {
  return scope === 'period' ? 2 : scope === 'device' ? 1 : 0;
}

function armRank(arms: readonly string[], arm: string): number {
  const index = arms.indexOf(arm);
  return index < 0 ? arms.length : index;
}

/** The verdict lines in the comparison's arm order, then device and profile. */
export function orderedVerdicts(verdict: ComparisonVerdict, arms: readonly string[]): ArmVerdict[] {
  return [...verdict.verdicts].sort(
    (a, b) =>
      armRank(arms, a.arm) - armRank(arms, b.arm) ||
      byText(a.device, b.device) ||
      byText(a.network_profile, b.network_profile) ||
      scopeRank(a.scope) - scopeRank(b.scope) ||
      byText(a.device_label ?? '', b.device_label ?? ''),
  );
}

export function OutcomeBadge({ outcome }: { outcome: OverallOutcome }) {
  return (
    <span className={`badge verdict-badge verdict-${outcome}`} data-outcome={outcome}>
      {OUTCOME_LABELS[outcome] ?? outcome}
    </span>
  );
}

/** The banner's sentence, naming the metric judged: "Series time, periods 3–30: faster than h1 …". */
function headline(outcome: OverallOutcome, baseline: string, marginPct: number, metric: string): string {
  const margin = `${formatNumber(marginPct, 3)} %`;
  const on = `${capitalized(metric)}: `;
  switch (outcome) {
    case 'regression':
      return `${on}slower than ${baseline} beyond the ${margin} margin somewhere.`;
    case 'improvement':
      return `${on}faster than ${baseline} beyond the ${margin} margin, with no regression.`;
    case 'equivalent':
      return `${on}within ±${margin} of ${baseline} everywhere.`;
    case 'no_data':
      return 'Nothing to judge.';
    default:
      return `${on}not decided yet: some comparisons need more blocks.`;
  }
}

type VerdictBannerProps = {
  /** GET …/verdict: the CI gate's answer, the same document the CLI gates on. */
  verdict: ComparisonVerdict;
  arms: readonly string[];
};

/** The CI gate's answer: the server's overall outcome on the gate metric, with each verdict's summary line. */
export function VerdictBanner({ verdict, arms }: VerdictBannerProps) {
  const { outcome, gate } = verdict;
  const rows = orderedVerdicts(verdict, arms);
  const baseline = verdict.baseline.arm ?? verdict.baseline.ref ?? 'the baseline';
  // The 2 ms floor widens the margin on fast requests; say so, or "within ±5 %" misleads.
  const widestPct = Math.max(0, ...rows.map((v) => v.margin * 100));
  const widened = widestPct > gate.margin_pct + 0.05;
  const history = verdict.history;
  return (
    <section
      className={`card verdict-banner verdict-banner-${outcome}`}
      data-testid="verdict-banner"
      data-outcome={outcome}
      data-metric={gate.metric}
      aria-label="Verdict"
    >
      <div className="verdict-banner-head">
        <OutcomeBadge outcome={outcome} />
        <div>
          <h2>{headline(outcome, baseline, gate.margin_pct, gateMetricLabel(gate))}</h2>
          <p className="muted small">
            {outcome === 'no_data'
              ? `No verdict: ${verdict.outcome_reason}.`
              : `Median ${metricLabel(gate.metric)} of each arm against ${baseline}; the worst outcome decides (α = ${gate.alpha}${verdict.history.length > 0 ? ', the last look’s share' : ''}, Holm-corrected).`}
            {widened &&
              ` The 2 ms floor widens the margin to ±${formatMarginPct(widestPct)} here: these medians are too short for ${gate.margin_pct} % to be meaningful.`}
          </p>
        </div>
      </div>
      {history.length > 0 && <VerdictHistory history={history} />}
      {rows.length > 0 && (
        <ul className="verdict-lines">
          {rows.map((v) => (
            <li
              key={`${v.arm}/${v.device}/${v.network_profile}/${v.device_label ?? ''}`}
              className={v.scope === 'device' ? 'verdict-line-device' : undefined}
              data-scope={v.scope}
            >
              {v.scope === 'device' && <span aria-label="one device of the class above">└ </span>}
              <OutcomeBadge outcome={v.outcome} />
              <code className="verdict-summary">{v.summary}</code>
              {v.devices_disagree && <strong className="verdict-disagree">devices disagree</strong>}
              {v.periods_disagree && <strong className="verdict-disagree">periods disagree</strong>}
              {v.outcome === 'inconclusive' && <span className="verdict-reason">{v.reason}</span>}
            </li>
          ))}
        </ul>
      )}
      {verdict.beside && outcome !== 'no_data' && (
        <BesideVerdicts beside={verdict.beside} gateLabel={gateMetricLabel(gate)} gateMetric={gate.metric} arms={arms} />
      )}
    </section>
  );
}

/** Why the gate's metric and the one beside it can disagree, in the words of the pair. */
function disagreementNote(gateMetric: string, gateLabel: string, beside: VerdictBeside): string {
  if (!isPerRequest(gateMetric) && isPerRequest(beside.metric)) {
    const whole = gateMetric === 'page_load_ms' ? 'the page' : 'the series';
    return (
      `The gate judged ${gateLabel}: what the app's user waits for. With requests issued together, each request ` +
      `waits behind its siblings, so ${beside.metric_label} can rise while ${whole} loads sooner.`
    );
  }
  return `The gate judged ${gateLabel}, the metric this comparison's spec names (gate.metric).`;
}

type BesideVerdictsProps = {
  beside: VerdictBeside;
  gateLabel: string;
  gateMetric: string;
  arms: readonly string[];
};

/**
 * The other view of the same requests, beside the gate's and never gating: per-request time beside
 * series time or page load, and the reverse. When the two disagree the page says which one gated.
 */
function BesideVerdicts({ beside, gateLabel, gateMetric, arms }: BesideVerdictsProps) {
  const rows = [...beside.verdicts].sort(
    (a, b) => armRank(arms, a.arm) - armRank(arms, b.arm) || byText(a.device, b.device) || byText(a.network_profile, b.network_profile),
  );
  return (
    <div
      className={`verdict-beside${beside.disagrees ? ' verdict-beside-disagrees' : ''}`}
      data-testid="verdict-beside"
      data-metric={beside.metric}
      data-disagrees={beside.disagrees}
    >
      <p>
        <strong>Beside it, not gating:</strong> {beside.metric_label} says <OutcomeBadge outcome={beside.outcome} />
        {beside.disagrees ? ` ${disagreementNote(gateMetric, gateLabel, beside)}` : ''}
      </p>
      <ul className="verdict-lines">
        {rows.map((v) => (
          <li key={`${v.arm}/${v.device}/${v.network_profile}`} data-metric={v.metric}>
            <OutcomeBadge outcome={v.outcome} />
            <code className="verdict-summary">{v.summary}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "×1.08 [1.01, 1.16]": the ratio of medians at a look and its 95 % CI. */
function formatRatio(ratio: number | null, ci: readonly (number | null)[] | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return '–';
  const ratioText = `×${formatFixed(ratio, 3)}`;
  return ci && ci.length === 2 ? `${ratioText} [${formatFixed(ci[0], 3)}, ${formatFixed(ci[1], 3)}]` : ratioText;
}

const HISTORY_COLUMNS = ['Look', 'Blocks per device', 'α at this look', 'Verdict', 'Ratio [95 % CI]', 'p', 'Then'];

/** Run until decided: the verdict at each look, the last one the verdict above. */
export function VerdictHistory({ history }: { history: readonly VerdictLook[] }) {
  const last = history[history.length - 1];
  return (
    <div className="verdict-history" data-testid="verdict-history">
      <p className="muted small">
        Run until decided: {history.length} look{history.length === 1 ? '' : 's'},{' '}
        {last?.decision === 'stop' && last.outcome !== 'inconclusive'
          ? `decided at ${last.blocks_per_device} blocks per device`
          : `stopped at ${last?.blocks_per_device ?? '–'} blocks per device (the maximum) without a decision`}
        . Each look tests at its share of α (the shares sum to the gate&apos;s α), so looking repeatedly does not raise
        the false-positive rate.
      </p>
      <DataTable label="Verdict at each look" columns={HISTORY_COLUMNS} className="verdict-history-table">
        <tbody>
          {history.map((look) => (
            <tr key={look.look} data-decision={look.decision}>
              <td>{look.look}</td>
              <td>{look.blocks_per_device}</td>
              <td>{look.alpha.toPrecision(2)}</td>
              <td>
                <OutcomeBadge outcome={look.outcome} />
              </td>
              <td>
                <code>{formatRatio(look.ratio, look.ci95)}</code>
              </td>
              <td>{formatP(look.p_value)}</td>
              <td>{look.decision === 'continue' ? 'more blocks' : 'stopped'}</td>
            </tr>
          ))}
        </tbody>
      </DataTable>
    </div>
  );
}

type EffectTableProps = {
  analysis: Analysis;
  arms: readonly string[];
  /** The gate's metric (the verdict's `gate.metric`): its rows come first. */
  gateMetric?: string;
};

const EFFECT_COLUMNS = [
  'Arm',
  'Metric',
  'Device · profile',
  'Verdict',
  'Median',
  'Change [95 % CI]',
  'Speedup',
  "Cliff's δ",
  "Cohen's d (log)",
  'p (Holm)',
  'Blocks',
];

/** Every arm × metric × device class × profile comparison with its effect sizes. */
export function EffectTable({ analysis, arms, gateMetric = 'total_ms' }: EffectTableProps) {
  const rows = orderedComparisons(analysis, arms, gateMetric);
  if (rows.length === 0) return null;
  return (
    <section className="card" aria-label="Effect sizes">
      <h3>Effect sizes against {analysis.baseline_arm}</h3>
      <DataTable label="Effect sizes" columns={EFFECT_COLUMNS} numeric className="effect-table" testId="effect-table">
        <tbody>
          {rows.map((c) => (
            <tr
              key={`${c.arm}/${c.metric}/${c.device_class}/${c.profile}/${c.device ?? ''}/${c.period ?? ''}`}
              data-scope={c.scope ?? 'pooled'}
              data-arm={c.arm}
              data-metric={c.metric}
              data-profile={c.profile}
              title={c.verdict.reason}
            >
              <th scope="row" className="nowrap">
                <ArmSwatch arms={arms} arm={c.arm} />
                {c.arm}
              </th>
              <td className="nowrap">{metricLabel(c.metric)}</td>
              <td>
                <span className="nowrap">
                  {c.scope === 'device'
                    ? `└ ${c.device ?? ''}`
                    : c.scope === 'period'
                      ? `└ period ${c.period ?? ''}`
                      : c.device_class}
                  {c.devices_disagree && <strong className="verdict-disagree"> devices disagree</strong>}
                  {c.periods_disagree && <strong className="verdict-disagree"> periods disagree</strong>}
                </span>
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
              <td className="nowrap">{c.speedup === null ? '–' : `${formatFixed(c.speedup, 2)}×`}</td>
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
      </DataTable>
      <p className="chart-note">
        Change is the mean per-block ratio − 1 (each block&apos;s arms compared by their 10 %-trimmed geometric means;
        series time: the mean of the block&apos;s per-period ratios, each period beneath on its own) with its
        Student-t CI over blocks. Cliff&apos;s δ thresholds 0.147 / 0.33 / 0.474; Cohen&apos;s d on log latency.
        p: t-test on the per-block log-ratios, Holm-corrected per arm and metric. Hover a row for the verdict&apos;s
        reason.
      </p>
    </section>
  );
}
