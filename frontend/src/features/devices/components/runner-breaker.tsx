import { useId } from 'react';
import type { FleetRunner } from '@/lib/api-types';
import { useResetBreaker } from '../api/reset-breaker';

/**
 * The lab's breaker: lab faults (the reference target down, shaping unavailable, a bad harness
 * build) count here, never towards a phone's quarantine. Tripped, the runner's devices take no
 * run until an owner or admin resets it once the lab is fixed.
 */
export function RunnerBreaker({ runner }: { runner: FleetRunner }) {
  const reset = useResetBreaker();
  const reasonId = useId();
  const { breaker } = runner;
  if (!breaker.tripped) {
    return (
      <span className="muted small" data-testid="breaker-closed">
        {breaker.consecutive_lab_faults
          ? `OK (${breaker.consecutive_lab_faults} lab fault${breaker.consecutive_lab_faults > 1 ? 's' : ''} in a row)`
          : 'OK'}
      </span>
    );
  }
  return (
    <div className="stack-tight" data-testid="breaker-tripped">
      <strong className="text-error">Tripped: its devices take no runs</strong>
      <span className="small" id={reasonId}>
        {breaker.reason}. Fix the lab (reference target, shaping, harness build), then reset it.
      </span>
      {runner.can_reset_breaker ? (
        <button
          type="button"
          className="button button-danger"
          onClick={() => reset.mutate(runner)}
          disabled={reset.isPending}
          aria-describedby={reasonId}
        >
          {reset.isPending ? 'Resetting…' : 'Reset breaker'}
        </button>
      ) : (
        <span className="muted small">
          {runner.pool.kind === 'hosted'
            ? 'LatencyLab resets the runners of hosted pools.'
            : 'Only an owner or admin of the organization can reset it.'}
        </span>
      )}
      {reset.isError && (
        <span role="alert" className="text-error small">
          Could not reset: {reset.error.message}
        </span>
      )}
    </div>
  );
}
