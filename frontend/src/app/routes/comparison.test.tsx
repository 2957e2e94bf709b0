import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { comparisonDetailFixture, resultsFixture } from '@/testing/fixtures';
import { makeRoutes } from '@/app/router';
import type { ComparisonDetail } from '@/lib/api-types';

const detailPath = `/comparisons/${comparisonDetailFixture.id}`;

describe('comparison detail page', () => {
  it('draws every chart from the results, with device and network as subtitle', async () => {
    renderRoutes(makeRoutes, detailPath);

    expect(await screen.findByRole('heading', { level: 1, name: comparisonDetailFixture.name })).toBeInTheDocument();
    const periods = resultsFixture.groups[0]?.periods.length ?? 0;
    const armCount = resultsFixture.arms.length;

    const avg = await screen.findByTestId('chart-avg');
    expect(avg).toHaveAttribute('data-points', String(periods * armCount));
    expect(screen.getByTestId('chart-median')).toHaveAttribute('data-points', String(periods * armCount));
    expect(screen.getByTestId('chart-throughput')).toHaveAttribute('data-points', String(periods * armCount));
    // The baseline arm has no gain over itself.
    expect(screen.getByTestId('chart-gain')).toHaveAttribute('data-points', String(periods * (armCount - 1)));
    expect(screen.getByTestId('chart-series')).toHaveAttribute('data-points', String(periods * 12 * armCount));
    await screen.findAllByText('host-lab-1 · network profile: transatlantic');
    // The fixture's analysis predates concurrency: its series were sequential, and the titles say so.
    expect(screen.getByRole('heading', { name: 'Percentage gain over https-h1, sequential' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Throughput' })).toBeInTheDocument();
  });

  it('switches between device/network groups', async () => {
    const { user } = renderRoutes(makeRoutes, detailPath);
    const select = await screen.findByLabelText('Network profile');
    await user.selectOptions(select, 'none');
    expect((await screen.findAllByText('host-lab-1 · network profile: none')).length).toBeGreaterThan(0);
  });

  it('shows progress and a cancel button while running, and no charts before data exists', async () => {
    const running: ComparisonDetail = {
      ...comparisonDetailFixture,
      status: 'running',
      finished_at: null,
      progress: {
        runs_total: 2,
        runs_done: 0,
        blocks_total: 12,
        blocks_done: 3,
        percent: 25,
        blocks_min: 12,
        blocks_max: 12,
        seconds_per_block: 20,
        device_seconds_left_min: 180,
        device_seconds_left_max: 180,
      },
    };
    server.use(
      http.get('*/api/v1/comparisons/:id', () => HttpResponse.json(running)),
      http.get('*/api/v1/comparisons/:id/results', () =>
        HttpResponse.json({ ...resultsFixture, status: 'running', groups: [] }),
      ),
    );
    const { user } = renderRoutes(makeRoutes, detailPath);

    const progress = await screen.findByRole('progressbar', { name: 'Comparison progress' });
    expect(progress).toHaveAttribute('aria-valuenow', '25');
    expect(screen.getByText(/3\/12 blocks · 0\/2 runs/)).toBeInTheDocument();
    expect(screen.getByText(/about 3 min of device time left/)).toBeInTheDocument();
    expect(await screen.findByText(/Charts appear here as soon as/)).toBeInTheDocument();
    expect(screen.queryByTestId('chart-avg')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Cancel comparison' }));
    expect(await screen.findByTestId('status-badge')).toHaveTextContent('Cancelled');
    expect(screen.queryByRole('button', { name: 'Cancel comparison' })).not.toBeInTheDocument();
  });

  it('says what a queued run is waiting for', async () => {
    const [first, ...rest] = comparisonDetailFixture.runs;
    const queued: ComparisonDetail = {
      ...comparisonDetailFixture,
      status: 'queued',
      finished_at: null,
      runs: [{ ...first!, status: 'queued', waiting_for: "no host device is registered in pool 'local'" }, ...rest],
    };
    server.use(
      http.get('*/api/v1/comparisons/:id', () => HttpResponse.json(queued)),
      http.get('*/api/v1/comparisons/:id/results', () =>
        HttpResponse.json({ ...resultsFixture, status: 'queued', groups: [] }),
      ),
    );
    renderRoutes(makeRoutes, detailPath);
    expect(await screen.findByText("no host device is registered in pool 'local'")).toBeInTheDocument();
  });

  it('polls until the comparison finishes, then shows the charts', async () => {
    let polls = 0;
    server.use(
      http.get('*/api/v1/comparisons/:id', () => {
        polls += 1;
        const status = polls < 2 ? 'running' : 'finished';
        return HttpResponse.json({ ...comparisonDetailFixture, status });
      }),
      http.get('*/api/v1/comparisons/:id/results', () =>
        polls < 2
          ? HttpResponse.json({ ...resultsFixture, status: 'running', groups: [] })
          : HttpResponse.json(resultsFixture),
      ),
    );
    renderRoutes(makeRoutes, detailPath);
    expect(await screen.findByTestId('status-badge')).toHaveTextContent('Running');
    expect(await screen.findByTestId('chart-avg')).toHaveAttribute('data-points', '30');
    expect(screen.getByTestId('status-badge')).toHaveTextContent('Finished');
  });

  it('says so when the comparison does not exist', async () => {
    renderRoutes(makeRoutes, '/comparisons/00000000-0000-4000-8000-000000000000');
    expect(await screen.findByRole('alert')).toHaveTextContent('does not exist');
  });
});
