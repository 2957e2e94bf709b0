import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Progress } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { makeTestQueryClient, renderWithProviders } from '@/testing/test-utils';
import { HOME_IDLE_POLL_MS, HOME_POLL_MS, homeQueryOptions, type Home } from '../api/get-home';
import { HomePage } from './home-page';
import { sparklineLabel } from './sparkline';

const progress = (percent: number, done = 0, total = 0): Progress => ({
  runs_total: 1,
  runs_done: 0,
  blocks_total: total,
  blocks_done: done,
  percent,
  blocks_min: total,
  blocks_max: total,
  seconds_per_block: null,
  device_seconds_left_min: null,
  device_seconds_left_max: null,
});

const HOME: Home = {
  recent: [
    {
      id: '22222222-2222-4222-8222-222222222222',
      name: 'nightly h3 vs h2',
      preset: 'mid-image-series',
      status: 'finished',
      tags: { branch: 'main', commit: 'bbb2222233334444' },
      created_at: '2026-11-20T10:00:00Z',
      finished_at: '2026-11-20T10:20:00Z',
      progress: progress(100, 4, 4),
      gate_metric: 'total_ms',
      headline_verdict: 'regression',
      sparkline: {
        kind: 'periods',
        metric: 'total_ms',
        statistic: 'median',
        unit: 'ms',
        device: 'R5CT1234',
        profile: 'lte',
        x: [3, 6, 9],
        series: [
          { arm: 'https-h1', values: [100, 120, 150] },
          { arm: 'h2', values: [90, 130, 170] },
        ],
      },
    },
    {
      id: '33333333-3333-4333-8333-333333333333',
      name: 'api calls',
      preset: null,
      status: 'finished',
      tags: {},
      created_at: '2026-11-19T10:00:00Z',
      finished_at: '2026-11-19T10:20:00Z',
      progress: progress(100, 4, 4),
      gate_metric: 'total_ms',
      headline_verdict: 'improvement',
      sparkline: {
        kind: 'arms',
        metric: 'total_ms',
        statistic: 'median',
        unit: 'ms',
        device: 'host-1',
        profile: 'none',
        x: [],
        series: [
          { arm: 'https-h1', values: [20] },
          { arm: 'h2', values: [12.5] },
        ],
      },
    },
  ],
  in_flight: [
    {
      id: '44444444-4444-4444-8444-444444444444',
      name: 'running one',
      preset: null,
      status: 'running',
      tags: {},
      created_at: '2026-11-21T10:00:00Z',
      finished_at: null,
      progress: progress(37.5, 3, 8),
    },
  ],
  farm: {
    devices: 5,
    platforms: [
      { platform: 'android', total: 3, states: [{ state: 'available', count: 2 }, { state: 'offline', count: 1 }] },
      { platform: 'host', total: 2, states: [{ state: 'busy', count: 2 }] },
    ],
  },
};

function mockHome(body: Home | null, status = 200) {
  server.use(
    http.get('*/api/v1/home', () => (body ? HttpResponse.json(body) : HttpResponse.json({ detail: 'boom' }, { status }))),
  );
}

const renderPage = () =>
  renderWithProviders(
    <HomePage
      renderStatus={(status) => <span data-testid="status" data-status={status}>{status}</span>}
      renderProgress={(p, label) => <div role="progressbar" aria-label={label} aria-valuenow={p.percent} />}
    />,
  );

describe('home page', () => {
  it('lists recent comparisons with status, verdict badge and a labelled sparkline', async () => {
    mockHome(HOME);
    renderPage();
    const table = await screen.findByRole('table', { name: 'Recent comparisons' });
    const first = within(table).getByTestId(`home-recent-${HOME.recent[0]?.id}`);
    expect(within(first).getByRole('link', { name: 'nightly h3 vs h2' })).toHaveAttribute(
      'href',
      `/comparisons/${HOME.recent[0]?.id}`,
    );
    expect(first).toHaveTextContent('main · bbb22222');
    expect(within(first).getByTestId('status')).toHaveAttribute('data-status', 'finished');
    expect(within(first).getByTestId('home-verdict')).toHaveTextContent('▲ Regression');
    expect(within(first).getByRole('img')).toHaveAccessibleName(
      'Median request time per period (3, 6, 9) on R5CT1234 / lte: https-h1 100 ms to 150 ms; h2 90 ms to 170 ms',
    );
    const second = within(table).getByTestId(`home-recent-${HOME.recent[1]?.id}`);
    expect(within(second).getByTestId('home-verdict')).toHaveTextContent('▼ Improvement');
    expect(within(second).getByTestId('sparkline')).toHaveAttribute('data-kind', 'arms');
    expect(within(second).getAllByRole('img')[0]?.querySelectorAll('rect')).toHaveLength(2);
    expect(within(second).getByTestId('sparkline')).toHaveTextContent('https-h1 20 msh2 12.5 ms');
  });

  it('shows what is running with its progress, and the farm by platform and state', async () => {
    mockHome(HOME);
    renderPage();
    const running = await screen.findByTestId(`home-in-flight-${HOME.in_flight[0]?.id}`);
    expect(within(running).getByRole('progressbar', { name: 'Progress of running one' })).toHaveAttribute(
      'aria-valuenow',
      '37.5',
    );
    const farm = screen.getByRole('list', { name: 'Devices by platform and state' });
    expect(within(farm).getByTestId('home-farm-android')).toHaveTextContent('Android: 3 devices2 available1 offline');
    expect(within(farm).getByTestId('home-farm-host')).toHaveTextContent('Host: 2 devices2 busy');
  });

  it('has empty states for a new organization', async () => {
    mockHome({ recent: [], in_flight: [], farm: { devices: 0, platforms: [] } });
    renderPage();
    expect(await screen.findByTestId('home-recent-empty')).toHaveTextContent('No comparisons yet.');
    expect(screen.getByRole('link', { name: 'Create your first comparison' })).toHaveAttribute('href', '/comparisons/new');
    expect(screen.getByTestId('home-in-flight-empty')).toBeInTheDocument();
    expect(screen.getByTestId('home-farm-empty')).toHaveTextContent('No devices yet.');
  });

  it('says when the dashboard cannot be loaded', async () => {
    mockHome(null, 500);
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('The dashboard could not be loaded: boom');
  });

  it('polls quickly while something runs, slowly otherwise', async () => {
    const client = makeTestQueryClient();
    const options = homeQueryOptions();
    const interval = options.refetchInterval as (query: unknown) => number | false;
    mockHome(HOME);
    await client.fetchQuery(options);
    expect(interval(client.getQueryCache().find({ queryKey: options.queryKey }))).toBe(HOME_POLL_MS);
    mockHome({ ...HOME, in_flight: [] });
    await client.fetchQuery({ ...options, staleTime: 0 });
    expect(interval(client.getQueryCache().find({ queryKey: options.queryKey }))).toBe(HOME_IDLE_POLL_MS);
  });

  it('describes an arms sparkline in words', () => {
    const spark = HOME.recent[1]?.sparkline;
    expect(spark && sparklineLabel(spark)).toBe('Median request time per arm on host-1 / none: https-h1 20 ms; h2 12.5 ms');
  });
});
