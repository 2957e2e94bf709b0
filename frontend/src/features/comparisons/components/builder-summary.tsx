import { useMemo, useState, type ReactNode } from 'react';
import { stringify } from 'yaml';
import type { ComparisonSpecRequest } from '@/lib/api-types';
import { formatNumber } from '@/utils/format';
import type { ComparisonEstimate, LiveValidation } from '../api/validate-comparison';

const count = (value: number) => formatNumber(value, 3);

function range(min: number, max: number, unit: string): string {
  return min === max ? `${count(min)} ${unit}` : `${count(min)}–${count(max)} ${unit}`;
}

function minutes(value: number): string {
  return value < 10 ? value.toFixed(1) : count(Math.round(value));
}

/** "4 runs · 11,520 requests · ≈ 38 device-minutes" (ranges when the comparison runs until decided). */
export function estimateText(estimate: ComparisonEstimate): string {
  const parts = [
    range(estimate.runs, estimate.runs, estimate.runs === 1 ? 'run' : 'runs'),
    range(estimate.blocks_min, estimate.blocks_max, 'blocks'),
    range(estimate.requests_min, estimate.requests_max, 'requests'),
  ];
  const { device_minutes_min: low, device_minutes_max: high } = estimate;
  if (low !== null && high !== null) {
    parts.push(low === high ? `≈ ${minutes(low)} device-minutes` : `≈ ${minutes(low)}–${minutes(high)} device-minutes`);
  }
  return parts.join(' · ');
}

function paceText(estimate: ComparisonEstimate): string {
  if (estimate.seconds_per_request === null) return 'Device time is estimated once a comparison of this organization has finished.';
  const n = estimate.pace_comparisons;
  const from =
    estimate.pace_basis === 'same_spec'
      ? `${n === 1 ? 'an earlier run' : `${count(n)} earlier runs`} of this same spec`
      : `${n === 1 ? 'your latest finished comparison' : `your ${count(n)} latest finished comparisons`}`;
  return `At ${estimate.seconds_per_request} s per request: the median pace of ${from}.`;
}

type BuilderSummaryProps = {
  spec: ComparisonSpecRequest | null;
  live: LiveValidation;
  /** False while the submit's own refusal is shown above (the summary then repeats nothing). */
  showProblems: boolean;
  submit: ReactNode;
};

/** Beside the submit button: the live check's verdict and estimate, and the spec as YAML for CI. */
export function BuilderSummary({ spec, live, showProblems, submit }: BuilderSummaryProps) {
  const [copied, setCopied] = useState<'idle' | 'done' | 'failed'>('idle');
  const yaml = useMemo(() => (spec ? stringify(spec, { lineWidth: 0 }) : ''), [spec]);
  const copy = () => {
    navigator.clipboard.writeText(yaml).then(
      () => setCopied('done'),
      () => setCopied('failed'),
    );
  };
  return (
    <div className="builder-summary">
      <div className="form-actions">
        {submit}
        <div className="estimate" aria-live="polite" data-testid="estimate">
          {live.state === 'checking' && <span className="muted">Checking the spec…</span>}
          {live.state === 'valid' && (
            <>
              <strong>{estimateText(live.estimate)}</strong>
              <span className="hint">{paceText(live.estimate)}</span>
              {live.warnings.length > 0 && (
                <div className="live-problems" data-testid="spec-warnings">
                  <span className="text-warning">
                    {live.warnings.length === 1 ? '1 warning' : `${live.warnings.length} warnings`} (it can still be
                    submitted):
                  </span>{' '}
                  <ul>
                    {live.warnings.map((warning) => (
                      <li key={warning.field}>
                        <code>{warning.field}</code> — {warning.message}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </>
          )}
          {live.state === 'invalid' && showProblems && (
            <div className="live-problems">
              <span className="text-error">
                {live.errors.length === 1 ? '1 problem' : `${live.errors.length} problems`} to fix:
              </span>{' '}
              <ul>
                {live.errors.map((error, index) => (
                  <li key={`${error.path}-${index}`}>
                    {error.path ? <code>{error.path}</code> : null}
                    {error.path ? ' — ' : null}
                    {error.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      </div>
      <details className="yaml-panel" open>
        <summary>The same spec as YAML (for CI: latencylab run spec.yaml)</summary>
        {spec ? (
          <>
            <pre className="code-block" data-testid="spec-yaml" tabIndex={0} aria-label="Spec as YAML">
              {yaml}
            </pre>
            <button type="button" className="button" onClick={copy}>
              Copy YAML
            </button>{' '}
            <span role="status" className="muted">
              {copied === 'done' ? 'Copied.' : copied === 'failed' ? 'Could not copy: select the text instead.' : ''}
            </span>
          </>
        ) : (
          <p className="muted">Fix the fields above to see the YAML.</p>
        )}
      </details>
    </div>
  );
}
