import { DataTable } from '@/components/data-table';
import { QueryState } from '@/components/query-state';
import type { DeviceDetail } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { useDevice } from '../api/get-devices';

const STATE_WORDS: Record<string, string> = { not_ready: 'not ready' };
const words = (state: string) => STATE_WORDS[state] ?? state;

/** A device's recorded state changes, newest first. */
export function DeviceHistory({ deviceId }: { deviceId: string }) {
  const device = useDevice(deviceId, true);
  return (
    <QueryState query={device} what="the device's history">
      {(detail) => <History device={detail} />}
    </QueryState>
  );
}

function History({ device }: { device: DeviceDetail }) {
  const { state_changes: changes, infra_failures: failures } = device;
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
      <DataTable label={`State changes of ${device.serial}`} columns={['When', 'Change', 'Reason']}>
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
      </DataTable>
    </div>
  );
}
