import type { Pool } from '@/lib/api-types';

const COUNTED = ['available', 'busy', 'not_ready', 'unauthorized', 'offline', 'quarantined'] as const;
const WORDS: Record<(typeof COUNTED)[number], string> = {
  available: 'available',
  busy: 'busy',
  not_ready: 'not ready',
  unauthorized: 'unauthorized',
  offline: 'offline',
  quarantined: 'quarantined',
};

export function PoolsSummary({ pools }: { pools: Pool[] }) {
  return (
    <ul className="pool-grid" aria-label="Pools">
      {pools.map((pool) => (
        <li key={pool.slug} className="card pool-card" data-testid={`pool-${pool.slug}`}>
          <div className="row-title">
            {pool.name} <span className="tag">{pool.kind}</span>
          </div>
          <div className="muted small">
            <code>{pool.slug}</code> · {pool.runners} runner{pool.runners === 1 ? '' : 's'} · {pool.devices.total}{' '}
            device{pool.devices.total === 1 ? '' : 's'}
          </div>
          <p className="small pool-counts">
            {COUNTED.filter((state) => pool.devices[state] > 0)
              .map((state) => `${pool.devices[state]} ${WORDS[state]}`)
              .join(' · ') || 'no devices yet'}
          </p>
        </li>
      ))}
    </ul>
  );
}
