import { DataTable } from '@/components/data-table';
import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
import type { Usage, UsageMonth } from '@/lib/api-types';
import { formatMonth, formatNumber } from '@/utils/format';
import { useUsage } from '../api/usage';

const minutes = (value: number) => formatNumber(value, value >= 100 ? 0 : 2);

/** Device-minutes per month and pool, against the organization's monthly quota (owners only). */
export function UsagePage() {
  const usage = useUsage();
  return (
    <div className="stack">
      <PageHeader title="Usage">
        Device-minutes: how long this organization&apos;s runs held a device, from each lease to its end, per pool and
        month (UTC). LatencyLab sets the monthly quota; once a month reaches it, new comparisons are refused until
        the next month.
      </PageHeader>
      <QueryState query={usage} what="usage" forbidden="Only owners of the organization see its usage.">
        {(data) => (
          <>
            <ThisMonth usage={data} />
            <MonthsTable usage={data} />
          </>
        )}
      </QueryState>
    </div>
  );
}

function ThisMonth({ usage }: { usage: Usage }) {
  const current = usage.months[0];
  const quota = usage.monthly_quota_device_minutes;
  if (!current) return null;
  const reached = quota !== null && current.device_minutes >= quota;
  return (
    <section aria-labelledby="this-month-heading" className="card pad stack-tight">
      <h2 id="this-month-heading">{formatMonth(current.month)}</h2>
      {quota === null ? (
        <p>
          <strong>{minutes(current.device_minutes)}</strong> device-minutes so far; no monthly quota.
        </p>
      ) : (
        <>
          <p>
            <strong>{minutes(current.device_minutes)}</strong> of {formatNumber(quota, 3)} device-minutes used
          </p>
          <meter aria-label="This month's device-minutes of the quota" min={0} max={quota} value={current.device_minutes} />
        </>
      )}
      {reached && (
        <p role="alert" className="alert alert-error">
          The quota is reached: new comparisons are refused until next month. Running comparisons finish.
        </p>
      )}
    </section>
  );
}

function MonthsTable({ usage }: { usage: Usage }) {
  const pools = poolsOf(usage.months);
  const scale = usage.monthly_quota_device_minutes ?? Math.max(1, ...usage.months.map((m) => m.device_minutes));
  const share = usage.monthly_quota_device_minutes === null ? 'Relative' : 'Of the quota';
  return (
    <section aria-labelledby="months-heading" className="card">
      <h2 id="months-heading" className="pad">
        Device-minutes per month
      </h2>
      <DataTable label="Device-minutes per month" columns={['Month', ...pools.map((pool) => pool.name), 'Total', share]}
        compact={false} numeric>
        <tbody>
          {usage.months.map((month) => (
            <tr key={month.month}>
              <th scope="row">{formatMonth(month.month)}</th>
              {pools.map((pool) => (
                <td key={pool.slug}>{minutes(month.pools.find((p) => p.pool === pool.slug)?.device_minutes ?? 0)}</td>
              ))}
              <td>{minutes(month.device_minutes)}</td>
              <td>
                <meter aria-label={`${formatMonth(month.month)} device-minutes`} min={0} max={scale} value={month.device_minutes} />
              </td>
            </tr>
          ))}
        </tbody>
      </DataTable>
    </section>
  );
}

/** Every pool any month used, in the order first seen. */
function poolsOf(months: UsageMonth[]): { slug: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const month of months) for (const pool of month.pools) if (!seen.has(pool.pool)) seen.set(pool.pool, pool.pool_name);
  return [...seen].map(([slug, name]) => ({ slug, name }));
}
