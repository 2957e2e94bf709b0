import { Spinner } from '@/components/spinner';
import { useDevices } from '../api/get-devices';
import { usePools, useRunners } from '../api/get-fleet';
import { DevicesTable } from './devices-table';
import { EnrollmentTokens } from './enrollment-tokens';
import { PoolsSummary } from './pools-summary';
import { RunnersTable } from './runners-table';

/** The lab at a glance: every device and why it waits, the runners, the pools, enrollment. */
export function DevicesPage() {
  const devices = useDevices();
  const pools = usePools();
  const runners = useRunners();

  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Devices</h1>
          <p className="muted">
            Phones and hosts of your pools and LatencyLab's hosted ones, as their runners report them every 10 s.
          </p>
        </div>
      </header>

      <section aria-labelledby="pools-heading" className="stack-tight">
        <h2 id="pools-heading">Pools</h2>
        {pools.isPending ? (
          <Spinner label="Loading pools" />
        ) : pools.isError ? (
          <p role="alert" className="alert alert-error">
            Could not load pools: {pools.error.message}
          </p>
        ) : (
          <PoolsSummary pools={pools.data} />
        )}
      </section>

      <section aria-labelledby="devices-heading" className="stack-tight">
        <h2 id="devices-heading">
          Devices {devices.data && <span className="muted small">({devices.data.count})</span>}
        </h2>
        {devices.isPending ? (
          <Spinner label="Loading devices" />
        ) : devices.isError ? (
          <p role="alert" className="alert alert-error">
            Could not load devices: {devices.error.message}
          </p>
        ) : devices.data.results.length === 0 ? (
          <div className="empty-state card">
            <h3>No devices yet</h3>
            <p>Enroll a runner on a lab host; its phones appear here within one heartbeat.</p>
          </div>
        ) : (
          <div className="card card-flush">
            <DevicesTable devices={devices.data.results} />
            {devices.data.next && (
              <p className="muted small pad">
                Showing {devices.data.results.length} of {devices.data.count}; filter the API by pool or state for
                the rest.
              </p>
            )}
          </div>
        )}
      </section>

      <section aria-labelledby="runners-heading" className="stack-tight">
        <h2 id="runners-heading">Runners</h2>
        {runners.isPending ? (
          <Spinner label="Loading runners" />
        ) : runners.isError ? (
          <p role="alert" className="alert alert-error">
            Could not load runners: {runners.error.message}
          </p>
        ) : (
          <div className="card card-flush">
            <RunnersTable runners={runners.data.results} />
          </div>
        )}
      </section>

      <section aria-labelledby="enrollment-heading" className="card stack-tight">
        <h2 id="enrollment-heading">Enrollment tokens</h2>
        {pools.data && <EnrollmentTokens pools={pools.data} />}
      </section>
    </div>
  );
}
