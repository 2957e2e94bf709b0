import { useMemo, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { Data, Layout } from 'plotly.js';
import { Spinner } from '@/components/spinner';
import { formatChangePct, formatDateTime, formatMs } from '@/utils/format';
import {
  trendCsvUrl,
  useTrend,
  useTrendOptions,
  type TrendOptions,
  type TrendPoint,
  type TrendQuery,
} from '../api/get-trend';
import { DataTable } from '@/components/data-table';
import { StandInTag } from '@/components/stand-in';
import { buildTrendChart, trendValueLabel, VERDICT_MARKERS, verdictKey } from './build-trend-chart';
import { PointLinks } from './point-links';
import './trends.css';

export type ChartProps = { data: Data[]; layout: Partial<Layout>; testId: string; label: string };

type TrendsPageProps = {
  /** Draws a Plotly chart (the app passes the results feature's Plot). */
  renderChart: (chart: ChartProps) => ReactNode;
};

type Metric = TrendQuery['metric'];
type Statistic = TrendQuery['statistic'];
type Order = TrendQuery['order'];

const STATISTICS: NonNullable<Statistic>[] = ['median', 'mean', 'p90', 'p95', 'p99'];
const METRICS: { value: NonNullable<Metric>; label: string }[] = [
  { value: 'total_ms', label: 'Total time' },
  { value: 'ttfb_ms', label: 'Time to first byte' },
  // What a series' and a request list's gate judge by default (analyses from version 2 on).
  { value: 'series_ms', label: 'Series time' },
  { value: 'page_load_ms', label: 'Page load' },
];
// The text marker beside each verdict in the table: the chart's shape, for readers without colour.
const SHAPE_GLYPHS: Record<string, string> = {
  regression: '▲',
  improvement: '▼',
  equivalent: '●',
  inconclusive: '◇',
  baseline: '■',
  none: '×',
};

/** The filters live in the URL (shareable, and the back button works); defaults from the options. */
function useTrendFilters(options: TrendOptions | undefined) {
  const [params, setParams] = useSearchParams();
  const branch = params.get('branch') ?? '';
  const candidates = options ? options.arms.filter((arm) => !options.baseline_arms.includes(arm)) : [];
  const arm = params.get('arm') || candidates[0] || options?.arms[0] || '';
  const query: TrendQuery | null = arm
    ? {
        arm,
        ...(branch ? { branch } : {}),
        ...(params.get('device_model') ? { device_model: params.get('device_model') ?? undefined } : {}),
        ...(params.get('platform') ? { platform: params.get('platform') as TrendQuery['platform'] } : {}),
        ...(params.get('profile') ? { profile: params.get('profile') ?? undefined } : {}),
        metric: (params.get('metric') as Metric) || 'total_ms',
        statistic: (params.get('statistic') as Statistic) || 'median',
        order: (params.get('order') as Order) || 'time',
      }
    : null;
  const set = (changes: Record<string, string>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );
  return { branch, query, set };
}

export function TrendsPage({ renderChart }: TrendsPageProps) {
  const [params] = useSearchParams();
  const options = useTrendOptions(params.get('branch') || undefined);
  const { branch, query, set } = useTrendFilters(options.data);
  const trend = useTrend(query);

  if (options.isPending) return <Spinner label="Loading the filters" />;
  if (options.isError) {
    return (
      <p className="alert alert-error" role="alert">
        The trend filters could not be loaded: {options.error.message}
      </p>
    );
  }
  const choices = options.data;
  const deviceValue = query?.device_model ? `${query.platform ?? ''}::${query.device_model}` : '';

  return (
    <div className="stack">
      <form className="card trend-filters" aria-label="Trend filters" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          <span>Branch</span>
          <select value={branch} onChange={(e) => set({ branch: e.target.value })}>
            <option value="">All comparisons</option>
            {choices.branches.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
            {branch && !choices.branches.includes(branch) && <option value={branch}>{branch}</option>}
          </select>
        </label>
        <label className="field">
          <span>Arm</span>
          <select value={query?.arm ?? ''} onChange={(e) => set({ arm: e.target.value })}>
            {choices.arms.length === 0 && <option value="">No arms</option>}
            {choices.arms.map((a) => (
              <option key={a} value={a}>
                {a}
                {choices.baseline_arms.includes(a) ? ' (baseline)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Device model</span>
          <select
            value={deviceValue}
            onChange={(e) => {
              const [platform = '', model = ''] = e.target.value ? e.target.value.split('::') : [];
              set({ platform, device_model: model });
            }}
          >
            <option value="">Any device</option>
            {choices.device_models.map((d) => (
              <option key={`${d.platform}::${d.model}`} value={`${d.platform}::${d.model}`}>
                {d.model} ({d.platform})
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Network profile</span>
          <select value={query?.profile ?? ''} onChange={(e) => set({ profile: e.target.value })}>
            <option value="">Any profile</option>
            {choices.profiles.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Metric</span>
          <select value={query?.metric ?? 'total_ms'} onChange={(e) => set({ metric: e.target.value })}>
            {METRICS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Statistic</span>
          <select value={query?.statistic ?? 'median'} onChange={(e) => set({ statistic: e.target.value })}>
            {STATISTICS.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Order</span>
          <select value={query?.order ?? 'time'} onChange={(e) => set({ order: e.target.value })}>
            <option value="time">By time</option>
            <option value="commit">By commit (first measured first)</option>
          </select>
        </label>
      </form>
      <TrendResult query={query} branch={branch} trend={trend} renderChart={renderChart} />
    </div>
  );
}

function TrendResult({
  query,
  branch,
  trend,
  renderChart,
}: {
  query: TrendQuery | null;
  branch: string;
  trend: ReturnType<typeof useTrend>;
  renderChart: TrendsPageProps['renderChart'];
}) {
  const chart = useMemo(() => (trend.data ? buildTrendChart(trend.data) : null), [trend.data]);
  if (!query) {
    return (
      <div className="card empty-state" data-testid="trend-empty">
        <p>No analysed comparisons yet: a trend needs finished comparisons to follow.</p>
      </div>
    );
  }
  if (trend.isPending) return <Spinner label="Loading the trend" />;
  if (trend.isError) {
    return (
      <p className="alert alert-error" role="alert">
        The trend could not be loaded: {trend.error.message}
      </p>
    );
  }
  const data = trend.data;
  if (data.points.length === 0 || !chart) {
    return (
      <div className="card empty-state" data-testid="trend-empty">
        <p>
          {branch ? (
            <>
              No comparisons on branch <strong>{branch}</strong> yet with arm {query.arm} on these filters.
            </>
          ) : (
            <>No analysed comparisons with arm {query.arm} on these filters yet.</>
          )}
        </p>
        <p className="muted">
          Tag comparisons with <code>branch={branch || 'main'}</code> (and <code>commit=…</code>, <code>version=…</code>)
          in the spec&apos;s <code>tags</code> or with the CLI&apos;s <code>--tag</code>, and they appear here once analysed.
        </p>
      </div>
    );
  }
  const label = `${trendValueLabel(data)} of ${data.arm}${data.branch ? ` on ${data.branch}` : ''}`;
  return (
    <>
      <section className="card chart-card" aria-labelledby="trend-chart-title">
        <div className="trend-chart-head">
          <h2 id="trend-chart-title">{label}</h2>
          <a className="button" href={trendCsvUrl(query)} download data-testid="trend-csv">
            Download CSV
          </a>
        </div>
        <p className="muted">
          {data.points.length} point{data.points.length === 1 ? '' : 's'}, one per comparison and device
          {data.statistic === 'median' ? '; bars are 95 % CIs of the median' : ''}. Marker shapes: ▲ regression, ▼
          improvement, ● equivalent, ◇ inconclusive, ■ baseline arm (against each comparison&apos;s own baseline arm).
          Click a point to open its comparison.
          {data.truncated && ` Only the latest ${data.limit} comparisons are shown.`}
        </p>
        <PointLinks>{renderChart({ data: chart.data, layout: chart.layout, testId: 'trend-chart', label })}</PointLinks>
      </section>
      <TrendTable points={data.points} />
    </>
  );
}

const TREND_COLUMNS = [
  'Comparison',
  'Commit',
  'Version',
  'Created',
  'Device / profile',
  'Value',
  'n',
  'Verdict',
  'vs baseline arm',
];

function TrendTable({ points }: { points: TrendPoint[] }) {
  return (
    <section className="card card-flush">
      <DataTable label="Trend points" columns={TREND_COLUMNS} compact={false}>
        <tbody>
          {points.map((p) => {
            const key = verdictKey(p);
            return (
              <tr key={`${p.comparison_id}-${p.device}-${p.profile}`} data-testid="trend-row" data-verdict={key}>
                <th scope="row">
                  <Link to={`/comparisons/${p.comparison_id}`}>{p.comparison_name}</Link>
                </th>
                <td>
                  <code>{p.commit ?? '–'}</code>
                </td>
                <td>{p.version ?? '–'}</td>
                <td>{formatDateTime(p.created_at)}</td>
                <td>
                  {p.device_model} / {p.profile}
                  <StandInTag standIn={p.stand_in} />
                </td>
                <td>
                  {formatMs(p.value)}
                  {p.ci95 && (
                    <span className="muted">
                      {' '}
                      [{formatMs(p.ci95[0])}, {formatMs(p.ci95[1])}]
                    </span>
                  )}
                </td>
                <td>{p.n}</td>
                <td>
                  <span className={`badge verdict-badge verdict-shape verdict-${key}`} data-outcome={key}>
                    <span aria-hidden="true">{SHAPE_GLYPHS[key]}</span> {VERDICT_MARKERS[key].label}
                  </span>
                </td>
                <td>{p.verdict === 'baseline' ? '–' : formatChangePct(p.change_pct)}</td>
              </tr>
            );
          })}
        </tbody>
      </DataTable>
    </section>
  );
}
