import type { ComparisonStatus } from '@/lib/api-types';

const LABELS: Record<ComparisonStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  analysing: 'Analysing',
  finished: 'Finished',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function StatusBadge({ status }: { status: ComparisonStatus }) {
  return (
    <span className={`badge badge-${status}`} data-testid="status-badge" data-status={status}>
      {LABELS[status] ?? status}
    </span>
  );
}
