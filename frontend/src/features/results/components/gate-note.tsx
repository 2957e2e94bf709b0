import type { ComparisonVerdict } from '@/lib/api-types';
import { isPerRequest } from '@/lib/gate-metrics';
import { gateMetricLabel } from './verdict';

/** Which view of the requests a part of the page draws: whole series, or each request. */
export type ShownMetric = 'series' | 'requests';

/**
 * What a chart or table says beside the verdict when the gate judged another view of the same
 * requests (series time against per-request time): which one gated, and what the other says, so
 * the banner and the charts never seem to contradict each other. Null when the part shows what
 * the gate judged, or there is no verdict yet.
 */
export function gateNote(verdict: ComparisonVerdict | undefined, shown: ShownMetric): string | null {
  if (!verdict || verdict.outcome === 'no_data') return null;
  const gateLabel = gateMetricLabel(verdict.gate);
  const perRequestGate = isPerRequest(verdict.gate.metric);
  if ((shown === 'series') !== perRequestGate) return null;
  const beside = verdict.beside;
  const besideSays = beside ? `; ${beside.metric_label}, beside it, says ${beside.outcome}` : '';
  if (shown === 'series') {
    return `The verdict above judged ${gateLabel} (this comparison's gate), not these series times${besideSays}.`;
  }
  return `Each request's own time. The verdict above judged ${gateLabel}${besideSays}.`;
}

export function GateNote({ verdict, shown }: { verdict: ComparisonVerdict | undefined; shown: ShownMetric }) {
  const note = gateNote(verdict, shown);
  if (!note) return null;
  return (
    <p className="gate-note muted" data-testid={`gate-note-${shown}`}>
      {note}
    </p>
  );
}
