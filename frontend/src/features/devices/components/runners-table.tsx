import type { FleetRunner } from '@/lib/api-types';
import { formatAge } from './fleet-format';

export function RunnersTable({ runners, now }: { runners: FleetRunner[]; now?: number }) {
  if (runners.length === 0) return <p className="muted pad">No runner has enrolled yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Runners">
        <thead>
          <tr>
            <th scope="col">Runner</th>
            <th scope="col">Pool</th>
            <th scope="col">Version</th>
            <th scope="col">Drivers</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col">Devices</th>
          </tr>
        </thead>
        <tbody>
          {runners.map((runner) => (
            <tr key={runner.id} data-testid={`runner-${runner.name}`}>
              <th scope="row">
                <div className="row-title">{runner.name}</div>
                {runner.hostname && <div className="muted small">{runner.hostname}</div>}
              </th>
              <td>{runner.pool.slug}</td>
              <td>{runner.version || '–'}</td>
              <td>{runner.drivers.length ? runner.drivers.join(', ') : '–'}</td>
              <td className="nowrap" title={runner.last_heartbeat_at ?? undefined}>
                {formatAge(runner.last_heartbeat_at, now)}
              </td>
              <td>{runner.device_count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
