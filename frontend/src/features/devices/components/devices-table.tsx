import { Fragment, useState } from 'react';
import { Link } from 'react-router-dom';
import { DataTable } from '@/components/data-table';
import { StandInTag } from '@/components/stand-in';
import type { Device, DeviceRecentRun } from '@/lib/api-types';
import { DeviceHistory } from './device-history';
import { DeviceStateBadge } from './device-state-badge';
import { formatAge, formatBattery, formatTemperature, PLATFORM_LABELS } from './fleet-format';
import { ReleaseButton } from './release-button';

const COLUMNS = ['Device', 'State', 'Battery', 'Temperature', 'Last seen', 'Runner · pool', 'Recent runs'];

export function DevicesTable({ devices, now }: { devices: Device[]; now?: number }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <DataTable label="Devices" columns={COLUMNS} compact={false}>
      <tbody>
        {devices.map((device) => (
          <Fragment key={device.id}>
            <tr data-testid={`device-${device.serial}`}>
              <th scope="row">
                <div className="row-title">
                  {device.model || device.serial}
                  <StandInTag standIn={device.stand_in} />
                </div>
                <div className="muted small">
                  {PLATFORM_LABELS[device.platform] ?? device.platform} {device.os_version} ·{' '}
                  <code>{device.serial}</code>
                </div>
                <button
                  type="button"
                  className="button-link small"
                  aria-expanded={open === device.id}
                  onClick={() => setOpen(open === device.id ? null : device.id)}
                >
                  {open === device.id ? 'Hide history' : 'History'}
                  <span className="visually-hidden"> of {device.serial}</span>
                </button>
              </th>
              <td className="col-state">
                <DeviceStateBadge state={device.state} />
                {device.state_reason && <div className="muted small state-reason">{device.state_reason}</div>}
                <ReleaseButton device={device} />
              </td>
              <td className="nowrap">{formatBattery(device.battery, device.charging)}</td>
              <td className="nowrap">{formatTemperature(device.temperature, device.thermal_status)}</td>
              <td className="nowrap" title={device.last_seen_at ?? undefined}>
                {formatAge(device.last_seen_at, now)}
              </td>
              <td>
                {device.runner.name}
                <div className="muted small">{device.pool.slug}</div>
              </td>
              <td>
                <RecentRuns runs={device.recent_runs} />
              </td>
            </tr>
            {open === device.id && (
              <tr className="row-detail">
                <td colSpan={COLUMNS.length}>
                  <DeviceHistory deviceId={device.id} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </DataTable>
  );
}

function RecentRuns({ runs }: { runs: DeviceRecentRun[] }) {
  if (runs.length === 0) return <span className="muted small">none yet</span>;
  return (
    <ul className="recent-runs">
      {runs.map((run) => (
        <li key={`${run.run_id}-${run.attempt}`}>
          <Link to={`/comparisons/${run.comparison_id}`}>{run.comparison_name}</Link>{' '}
          <span className={`small run-status run-status-${run.status}`}>
            {run.status.replace('_', ' ')}
            {run.attempt > 1 && ` · attempt ${run.attempt}`}
          </span>
          {run.error && (
            <div className="muted small run-error" title={run.error}>
              {run.error}
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
