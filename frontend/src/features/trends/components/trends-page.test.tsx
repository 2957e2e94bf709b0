import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import type { Trend, TrendOptions, TrendPoint } from '../api/get-trend';
import { TrendsPage, type ChartProps } from './trends-page';

const OPTIONS: TrendOptions = {
  branch: null,
  branches: ['feature', 'main'],
  arms: ['h2', 'h3', 'https-h1'],
  baseline_arms: ['https-h1'],
  device_models: [{ platform: 'android', model: 'Pixel 8' }],
  profiles: ['lte', 'none'],
  platforms: ['android', 'ios', 'host'],
  metrics: ['total_ms', 'ttfb_ms'],
  statistics: ['median', 'mean', 'p90', 'p95', 'p99'],
  orders: ['time', 'commit'],
  comparisons: 3,
};

function point(id: string, commit: string, value: number, verdict: TrendPoint['verdict']): TrendPoint {
  return {
    comparison_id: id,
    comparison_name: `nightly ${commit}`,
    status: 'finished',
    created_at: '2026-11-20T10:00:00Z',
    branch: 'main',
    commit,
    version: null,
    tags: { branch: 'main', commit },
    device: 'R5CT1234',
    device_model: 'Pixel 8',
    platform: 'android',
    stand_in: null,
    profile: 'lte',
    value,
    ci95: [value - 2, value + 3],
    n: 120,
    failed_requests: 0,
    baseline_arm: 'https-h1',
    verdict,
    verdict_summary: null,
    change_pct: verdict === 'regression' ? 12.5 : -20,
    change_ci95_pct: null,
  };
}

const POINTS = [
  point('11111111-1111-4111-8111-111111111111', 'aaa1111122', 100, 'equivalent'),
  point('22222222-2222-4222-8222-222222222222', 'bbb2222233', 130, 'regression'),
  point('33333333-3333-4333-8333-333333333333', 'ccc3333344', 80, 'improvement'),
];

let requests: URL[] = [];

function mockTrends(points: TrendPoint[] = POINTS, status = 200) {
  server.use(
    http.get('*/api/v1/trends/options', () => HttpResponse.json(OPTIONS)),
    http.get('*/api/v1/trends', ({ request }) => {
      const url = new URL(request.url);
      requests.push(url);
      if (status !== 200) return HttpResponse.json({ metric: ['metric: x is not one of total_ms, ttfb_ms'] }, { status });
      const trend: Trend = {
        metric: url.searchParams.get('metric') ?? 'total_ms',
        statistic: url.searchParams.get('statistic') ?? 'median',
        unit: 'ms',
        arm: url.searchParams.get('arm') ?? '',
        branch: url.searchParams.get('branch'),
        device_model: url.searchParams.get('device_model'),
        platform: url.searchParams.get('platform'),
        profile: url.searchParams.get('profile'),
        order: url.searchParams.get('order') ?? 'time',
        limit: 500,
        truncated: false,
        points,
      };
      return HttpResponse.json(trend);
    }),
  );
}

let charts: ChartProps[] = [];
const renderChart = (chart: ChartProps) => {
  charts.push(chart);
  return <div data-testid={chart.testId} aria-label={chart.label} />;
};
const renderPage = (path = '/trends?branch=main') =>
  renderWithProviders(<TrendsPage renderChart={renderChart} />, {
    path,
    routePath: '/trends',
    extraRoutes: [{ path: '/comparisons/:id', element: <h1>Comparison page</h1> }],
  });

beforeEach(() => {
  requests = [];
  charts = [];
});

describe('trends page', () => {
  it('draws the branch trend with each verdict marked, a table linking to each comparison and a CSV link', async () => {
    mockTrends();
    const { user } = renderPage();
    const table = await screen.findByRole('table', { name: 'Trend points' });
    const rows = within(table).getAllByTestId('trend-row');
    expect(rows.map((r) => r.getAttribute('data-verdict'))).toEqual(['equivalent', 'regression', 'improvement']);
    expect(rows[1]).toHaveTextContent('bbb2222233');
    expect(rows[1]).toHaveTextContent('130 ms [128 ms, 133 ms]');
    expect(rows[1]).toHaveTextContent('▲ Regression');
    expect(rows[1]).toHaveTextContent('+13 %');
    expect(rows[2]).toHaveTextContent('▼ Improvement');

    // The default arm is the first that is not a baseline arm; the branch comes from the URL.
    expect(requests[0]?.searchParams.get('arm')).toBe('h2');
    expect(requests[0]?.searchParams.get('branch')).toBe('main');
    expect(screen.getByLabelText('Arm')).toHaveValue('h2');
    expect(screen.getByTestId('trend-csv')).toHaveAttribute(
      'href',
      '/api/v1/trends.csv?arm=h2&branch=main&metric=total_ms&statistic=median&order=time',
    );
    const chart = charts[charts.length - 1];
    expect(chart?.testId).toBe('trend-chart');
    expect(chart?.label).toBe('Median total time of h2 on main');
    expect(screen.getByRole('heading', { name: 'Median total time of h2 on main' })).toBeInTheDocument();

    await user.click(within(rows[0] as HTMLElement).getByRole('link', { name: 'nightly aaa1111122' }));
    expect(await screen.findByRole('heading', { name: 'Comparison page' })).toBeInTheDocument();
  });

  it('asks again when a filter changes', async () => {
    mockTrends();
    const { user, router } = renderPage();
    await screen.findByRole('table', { name: 'Trend points' });
    await user.selectOptions(screen.getByLabelText('Statistic'), 'p90');
    await user.selectOptions(screen.getByLabelText('Device model'), 'android::Pixel 8');
    await user.selectOptions(screen.getByLabelText('Network profile'), 'lte');
    await waitFor(() => {
      const last = requests[requests.length - 1];
      expect(last?.searchParams.get('statistic')).toBe('p90');
      expect(last?.searchParams.get('device_model')).toBe('Pixel 8');
      expect(last?.searchParams.get('platform')).toBe('android');
      expect(last?.searchParams.get('profile')).toBe('lte');
    });
    expect(router.state.location.search).toContain('statistic=p90');
  });

  it('says how to get points when the branch has none', async () => {
    mockTrends([]);
    renderPage('/trends?branch=release-9');
    const empty = await screen.findByTestId('trend-empty');
    expect(empty).toHaveTextContent('No comparisons on branch release-9 yet');
    expect(empty).toHaveTextContent('branch=release-9');
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('says so when the organization has no analysed comparison yet', async () => {
    server.use(
      http.get('*/api/v1/trends/options', () =>
        HttpResponse.json({ ...OPTIONS, branches: [], arms: [], baseline_arms: [], device_models: [], profiles: [], comparisons: 0 }),
      ),
      http.get('*/api/v1/trends', ({ request }) => {
        requests.push(new URL(request.url));
        return HttpResponse.json({ detail: 'not asked' }, { status: 500 });
      }),
    );
    renderPage('/trends');
    expect(await screen.findByTestId('trend-empty')).toHaveTextContent('No analysed comparisons yet');
    expect(requests).toHaveLength(0);
  });

  it("shows the API's message when the trend is refused", async () => {
    mockTrends(POINTS, 400);
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('metric: x is not one of total_ms, ttfb_ms');
  });
});
