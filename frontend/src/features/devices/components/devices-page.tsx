import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
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
      <PageHeader title="Devices">
        Phones and hosts of your pools and LatencyLab's hosted ones, as their runners report them every 10 s.
      </PageHeader>

      <section aria-labelledby="pools-heading" className="stack-tight">
        <h2 id="pools-heading">Pools</h2>
        <QueryState query={pools} what="pools">
          {(rows) => <PoolsSummary pools={rows} />}
        </QueryState>
      </section>

      <section aria-labelledby="devices-heading" className="stack-tight">
        <h2 id="devices-heading">
          Devices {devices.data && <span className="muted small">({devices.data.count})</span>}
        </h2>
        <QueryState
          query={devices}
          what="devices"
          isEmpty={(page) => page.results.length === 0}
          empty={
            <div className="empty-state card">
              <h3>No devices yet</h3>
              <p>Enroll a runner on a lab host; its phones appear here within one heartbeat.</p>
            </div>
          }>
          {(page) => (
            <div className="card card-flush">
              <DevicesTable devices={page.results} />
              {page.next && (
                <p className="muted small pad">
                  Showing {page.results.length} of {page.count}; filter the API by pool or state for the rest.
                </p>
              )}
            </div>
          )}
        </QueryState>
      </section>

      <section aria-labelledby="runners-heading" className="stack-tight">
        <h2 id="runners-heading">Runners</h2>
        <QueryState
          query={runners}
          what="runners"
          isEmpty={(page) => page.results.length === 0}
          empty={<p className="empty-state muted">No runner has enrolled yet.</p>}>
          {(page) => (
            <div className="card card-flush">
              <RunnersTable runners={page.results} />
            </div>
          )}
        </QueryState>
      </section>

      <section aria-labelledby="enrollment-heading" className="card stack-tight">
        <h2 id="enrollment-heading">Enrollment tokens</h2>
        {pools.data && <EnrollmentTokens pools={pools.data} />}
      </section>
    </div>
  );
}
