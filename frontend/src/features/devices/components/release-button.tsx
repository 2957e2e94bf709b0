import { useId } from 'react';
import type { Device } from '@/lib/api-types';
import { useReleaseDevice } from '../api/release-device';

/** Only for a quarantined device; disabled with the reason for those who may not release it. */
export function ReleaseButton({ device }: { device: Device }) {
  const release = useReleaseDevice();
  const reasonId = useId();
  if (device.state !== 'quarantined') return null;
  if (!device.can_release) {
    return (
      <div className="stack-tight release">
        <button type="button" className="button" disabled aria-describedby={reasonId}>
          Release from quarantine
        </button>
        <span id={reasonId} className="muted small">
          {device.pool.kind === 'hosted'
            ? 'LatencyLab releases devices of hosted pools.'
            : 'Only an owner or admin of the organization can release it.'}
        </span>
      </div>
    );
  }
  return (
    <div className="stack-tight release">
      <button
        type="button"
        className="button button-danger"
        onClick={() => release.mutate(device)}
        disabled={release.isPending}
      >
        {release.isPending ? 'Releasing…' : 'Release from quarantine'}
      </button>
      {release.isError && (
        <span role="alert" className="text-error small">
          Could not release: {release.error.message}
        </span>
      )}
    </div>
  );
}
