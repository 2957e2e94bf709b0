import { DataTable } from '@/components/data-table';
import type { FleetRunner } from '@/lib/api-types';
import { formatAge } from './fleet-format';
import { RunnerBreaker } from './runner-breaker';

export function RunnersTable({ runners, now }: { runners: FleetRunner[]; now?: number }) {
  return (
    <DataTable label="Runners" columns={['Runner', 'Pool', 'Version', 'Drivers', 'Last heartbeat', 'Devices', 'Lab breaker']} compact={false}>
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
            <td>
              <RunnerBreaker runner={runner} />
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
