import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { DataTable } from '@/components/data-table';
import { Spinner } from '@/components/spinner';
import type { ComparisonStatus, Progress } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { useHome, type HomeFarm, type HomeInFlight, type HomeRecent } from '../api/get-home';
import { Sparkline } from './sparkline';
import './home.css';

type HomePageProps = {
  /** The comparisons feature's status badge and progress bar (the app composes them in). */
  renderStatus: (status: ComparisonStatus) => ReactNode;
  renderProgress: (progress: Progress, label: string) => ReactNode;
};

const VERDICT_LABELS: Record<string, string> = {
  regression: 'Regression',
  improvement: 'Improvement',
  equivalent: 'Equivalent',
  inconclusive: 'Inconclusive',
  no_data: 'No data',
};
// A glyph beside the word, so the badge does not rely on colour alone.
const VERDICT_GLYPHS: Record<string, string> = {
  regression: '▲',
  improvement: '▼',
  equivalent: '●',
  inconclusive: '◇',
  no_data: '–',
};
const PLATFORM_LABELS: Record<string, string> = { android: 'Android', ios: 'iOS', host: 'Host' };
const STATE_LABELS: Record<string, string> = {
  available: 'available',
  busy: 'busy',
  not_ready: 'not ready',
  unauthorized: 'unauthorized',
  offline: 'offline',
  quarantined: 'quarantined',
};

export function HomePage({ renderStatus, renderProgress }: HomePageProps) {
  const home = useHome();
  if (home.isPending) return <Spinner label="Loading the dashboard" />;
  if (home.isError) {
    return (
      <p className="alert alert-error" role="alert">
        The dashboard could not be loaded: {home.error.message}
      </p>
    );
  }
  const { recent, in_flight: inFlight, farm } = home.data;
  return (
    <div className="home-grid">
      <section className="card home-wide" aria-labelledby="home-recent">
        <div className="section-header">
          <h2 id="home-recent">Recent comparisons</h2>
          <Link to="/comparisons">All comparisons</Link>
        </div>
        {recent.length === 0 ? (
          <div className="empty-state" data-testid="home-recent-empty">
            <p>No comparisons yet.</p>
            <Link to="/comparisons/new" className="button button-primary">
              Create your first comparison
            </Link>
          </div>
        ) : (
          <RecentTable recent={recent} renderStatus={renderStatus} />
        )}
      </section>
      <section className="card" aria-labelledby="home-in-flight">
        <h2 id="home-in-flight">Running now</h2>
        {inFlight.length === 0 ? (
          <p className="muted" data-testid="home-in-flight-empty">
            Nothing is running. Queued and running comparisons show their progress here.
          </p>
        ) : (
          <InFlightList inFlight={inFlight} renderStatus={renderStatus} renderProgress={renderProgress} />
        )}
      </section>
      <section className="card" aria-labelledby="home-farm">
        <div className="section-header">
          <h2 id="home-farm">Device farm</h2>
          <Link to="/devices">Devices</Link>
        </div>
        <FarmStatus farm={farm} />
      </section>
    </div>
  );
}

function VerdictBadge({ verdict }: { verdict: HomeRecent['headline_verdict'] }) {
  if (!verdict) return <span className="muted">–</span>;
  return (
    <span className={`badge verdict-badge verdict-shape verdict-${verdict}`} data-testid="home-verdict" data-outcome={verdict}>
      <span aria-hidden="true">{VERDICT_GLYPHS[verdict]}</span> {VERDICT_LABELS[verdict] ?? verdict}
    </span>
  );
}

function RecentTable({ recent, renderStatus }: { recent: HomeRecent[]; renderStatus: HomePageProps['renderStatus'] }) {
  return (
    <DataTable
      label="Recent comparisons"
      columns={['Comparison', 'Status', 'Verdict', 'Medians', 'Created']}
      compact={false}
    >
      <tbody>
        {recent.map((c) => (
          <tr key={c.id} data-testid={`home-recent-${c.id}`}>
            <th scope="row">
              <Link to={`/comparisons/${c.id}`}>{c.name}</Link>
              {(c.tags.branch || c.tags.commit) && (
                <div className="muted home-tags">
                  {[c.tags.branch, c.tags.commit?.slice(0, 8)].filter(Boolean).join(' · ')}
                </div>
              )}
            </th>
            <td>{renderStatus(c.status)}</td>
            <td>
              <VerdictBadge verdict={c.headline_verdict} />
            </td>
            <td>{c.sparkline ? <Sparkline spark={c.sparkline} /> : <span className="muted">–</span>}</td>
            <td>{formatDateTime(c.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

function InFlightList({ inFlight, renderStatus, renderProgress }: { inFlight: HomeInFlight[] } & HomePageProps) {
  return (
    <ul className="home-in-flight">
      {inFlight.map((c) => (
        <li key={c.id} data-testid={`home-in-flight-${c.id}`}>
          <div className="home-in-flight-head">
            <Link to={`/comparisons/${c.id}`}>{c.name}</Link>
            {renderStatus(c.status)}
          </div>
          {renderProgress(c.progress, `Progress of ${c.name}`)}
        </li>
      ))}
    </ul>
  );
}

function FarmStatus({ farm }: { farm: HomeFarm }) {
  if (farm.devices === 0) {
    return (
      <p className="muted" data-testid="home-farm-empty">
        No devices yet. Enroll a runner on the <Link to="/devices">Devices</Link> page.
      </p>
    );
  }
  return (
    <ul className="home-farm" aria-label="Devices by platform and state">
      {farm.platforms.map((p) => (
        <li key={p.platform} data-testid={`home-farm-${p.platform}`}>
          <strong>
            {PLATFORM_LABELS[p.platform] ?? p.platform}: {p.total} device{p.total === 1 ? '' : 's'}
          </strong>
          <span className="home-farm-states">
            {p.states.map((s) => (
              <span key={s.state} className={`home-farm-state state-${s.state}`} data-state={s.state}>
                {s.count} {STATE_LABELS[s.state] ?? s.state}
              </span>
            ))}
          </span>
        </li>
      ))}
    </ul>
  );
}
