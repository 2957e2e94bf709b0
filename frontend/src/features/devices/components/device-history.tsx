import { Spinner } from '@/components/spinner';
import { formatDateTime } from '@/utils/format';
import { useDevice } from '../api/get-devices';

const STATE_WORDS: Record<string, string> = { not_ready: 'not ready' };
const words = (state: string) => STATE_WORDS[state] ?? state;

/** A device's recorded state changes, newest first. */
export function DeviceHistory({ deviceId }: { deviceId: string }) {
  const device = useDevice(deviceId, true);
  if (device.isPending) return <Spinner label="Loading the device's history" />;
  if (device.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not load the history: {device.error.message}
      </p>
    );
  }
  const { state_changes: changes, infra_failures: failures } = device.data;
  return (
    <div className="stack-tight">
      {failures.length > 0 && (
        <p className="small">
          <strong>
            {failures.length} infrastructure failure{failures.length === 1 ? '' : 's'} in a row:
          </strong>{' '}
          {failures.map((failure) => `${failure.kind}${failure.error ? ` (${failure.error})` : ''}`).join('; ')}
        </p>
      )}
      <table className="table table-compact" aria-label={`State changes of ${device.data.serial}`}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change, index) => (
            <tr key={`${change.at}-${index}`}>
              <td className="nowrap">{formatDateTime(change.at)}</td>
              <td className="nowrap">
                {words(change.from_state)} → {words(change.to_state)}
              </td>
              <td>
                {change.reason}
                {change.changed_by && <span className="muted"> · by {change.changed_by}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
