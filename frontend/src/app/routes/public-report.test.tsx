import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '@/testing/test-utils';
import { mockBackend } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { publicReportFixture } from '@/features/reports/testing/fixtures';
import { makeRoutes } from '../router';

describe('public report route /r/:token', () => {
  it('shows the report without a session, drawn from the report alone', async () => {
    mockBackend.signedIn = false;
    const signedInCalls: string[] = [];
    server.use(
      http.get('*/api/v1/public/reports/:token', ({ params }) =>
        params.token === 'lls_good' ? HttpResponse.json(publicReportFixture) : HttpResponse.json({}, { status: 500 }),
      ),
      http.get('*/api/v1/comparisons/*', ({ request }) => {
        signedInCalls.push(request.url);
        return HttpResponse.json({ detail: 'Authentication credentials were not provided.' }, { status: 403 });
      }),
    );
    // Every request the page makes: a visitor has no session, so only the public API may be asked.
    const requested: string[] = [];
    const onRequest = ({ request }: { request: Request }) => {
      requested.push(new URL(request.url).pathname);
    };
    server.events.on('request:start', onRequest);
    const { router } = renderRoutes(makeRoutes, '/r/lls_good');
    expect(await screen.findByRole('heading', { name: 'Mid image series on Pixel 8', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/r/lls_good'); // no detour to the login page
    expect(screen.getByTestId('report-verdict-line')).toHaveTextContent('Improvement: h2 (series time) vs https-h1');
    // The comparison page's own results: the verdict banner (naming the metric it judged), effect sizes and charts.
    expect(await screen.findByTestId('verdict-banner')).toHaveTextContent(
      'Series time, periods 3–30: faster than https-h1 beyond the 5 % margin',
    );
    await waitFor(() => expect(screen.getByTestId('chart-avg')).toHaveAttribute('data-state', 'ready'));
    expect(Number(screen.getByTestId('chart-avg').getAttribute('data-points'))).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Download HTML' })).toHaveAttribute(
      'href',
      '/api/v1/public/reports/lls_good/report.html',
    );
    expect(screen.getByRole('link', { name: 'Download PDF' })).toHaveAttribute('href', '/api/v1/public/reports/lls_good/report.pdf');
    const method = screen.getByRole('region', { name: 'Method' });
    expect(within(method).getByRole('table', { name: 'Runs' })).toHaveTextContent('Pixel 8');
    expect(within(method).getByText(/1,200 samples stored/)).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(signedInCalls).toEqual([]);
    server.events.removeListener('request:start', onRequest);
    expect(requested.filter((pathname) => !pathname.startsWith('/api/v1/public/'))).toEqual([]);
  });

  it('says the link is no longer valid on a 404', async () => {
    mockBackend.signedIn = false;
    server.use(
      http.get('*/api/v1/public/reports/:token', () =>
        HttpResponse.json({ detail: 'This share link is no longer valid.' }, { status: 404 }),
      ),
    );
    renderRoutes(makeRoutes, '/r/lls_revoked');
    expect(await screen.findByRole('heading', { name: 'This link is no longer valid' })).toBeInTheDocument();
  });
});
