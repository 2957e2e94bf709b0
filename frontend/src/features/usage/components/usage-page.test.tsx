import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Usage } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { UsagePage } from './usage-page';

const usage = (quota: number | null, novemberMinutes: number): Usage => ({
  monthly_quota_device_minutes: quota,
  months: [
    {
      month: '2026-11',
      device_minutes: novemberMinutes,
      pools: [
        { pool: 'local', pool_name: 'Local lab', device_minutes: novemberMinutes - 20 },
        { pool: 'hosted', pool_name: 'Hosted phones', device_minutes: 20 },
      ],
    },
    { month: '2026-10', device_minutes: 12.5, pools: [{ pool: 'local', pool_name: 'Local lab', device_minutes: 12.5 }] },
    { month: '2026-09', device_minutes: 0, pools: [] },
  ],
});

function serve(body: Usage | { detail: string }, status = 200) {
  const requested: string[] = [];
  server.use(
    http.get('*/api/v1/usage', ({ request }) => {
      requested.push(new URL(request.url).searchParams.get('months') ?? '');
      return HttpResponse.json(body, { status });
    }),
  );
  return requested;
}

describe('usage page', () => {
  it('shows this month against the quota and every month per pool', async () => {
    const requested = serve(usage(1200, 93.5));
    renderWithProviders(<UsagePage />, { path: '/usage', routePath: '/usage' });
    expect(await screen.findByRole('heading', { level: 2, name: 'November 2026' })).toBeInTheDocument();
    expect(screen.getByText(/of 1,200 device-minutes used/)).toHaveTextContent('93.5 of 1,200 device-minutes used');
    expect(screen.getByRole('meter', { name: "This month's device-minutes of the quota" })).toHaveAttribute('value', '93.5');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(requested).toEqual(['12']);

    const table = screen.getByRole('table', { name: 'Device-minutes per month' });
    const headers = within(table).getAllByRole('columnheader').map((th) => th.textContent);
    expect(headers).toEqual(['Month', 'Local lab', 'Hosted phones', 'Total', 'Of the quota']);
    const october = within(table).getByRole('row', { name: /October 2026/ });
    expect(within(october).getAllByRole('cell').map((td) => td.textContent)).toEqual(['12.5', '0', '12.5', '']);
    expect(within(table).getByRole('row', { name: /September 2026/ })).toBeInTheDocument();
  });

  it('says when the quota is reached', async () => {
    serve(usage(100, 100));
    renderWithProviders(<UsagePage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('new comparisons are refused until next month');
  });

  it('says when there is no quota', async () => {
    serve(usage(null, 30));
    renderWithProviders(<UsagePage />);
    expect(await screen.findByText(/no monthly quota/)).toHaveTextContent('30 device-minutes so far; no monthly quota.');
    expect(screen.getByRole('columnheader', { name: 'Relative' })).toBeInTheDocument();
  });

  it('tells admins and members that only owners see usage', async () => {
    serve({ detail: 'Only an owner of the organization may see its usage.' }, 403);
    renderWithProviders(<UsagePage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Only owners of the organization see its usage.');
  });
});
