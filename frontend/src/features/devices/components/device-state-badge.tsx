import type { DeviceState } from '@/lib/api-types';

const LABELS: Record<DeviceState, string> = {
  available: 'Available',
  busy: 'Busy',
  not_ready: 'Not ready',
  unauthorized: 'Unauthorized',
  offline: 'Offline',
  quarantined: 'Quarantined',
};

// The comparison badges' colours, by meaning: ready, working, waiting, gone, stopped.
const TONES: Record<DeviceState, string> = {
  available: 'badge-finished',
  busy: 'badge-running',
  not_ready: 'badge-cancelled',
  unauthorized: 'badge-cancelled',
  offline: 'badge-queued',
  quarantined: 'badge-failed',
};

export function DeviceStateBadge({ state }: { state: DeviceState }) {
  return (
    <span className={`badge ${TONES[state] ?? 'badge-queued'}`} data-testid="device-state" data-state={state}>
      {LABELS[state] ?? state}
    </span>
  );
}
