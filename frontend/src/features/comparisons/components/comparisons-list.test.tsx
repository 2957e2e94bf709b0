import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { comparisonsPageFixture } from '@/testing/fixtures';
import { ComparisonsList } from './comparisons-list';

describe('ComparisonsList', () => {
  it('lists comparisons with a status badge and a progress bar each', async () => {
    renderWithProviders(<ComparisonsList />, { path: '/comparisons', routePath: '/comparisons' });

    const rows = await screen.findAllByTestId('comparison-row');
    expect(rows).toHaveLength(comparisonsPageFixture.results.length);

    const running = rows[1] as HTMLElement;
    expect(within(running).getByRole('link', { name: 'Release 2.2.1: payload sweep' })).toHaveAttribute(
      'href',
      '/comparisons/0b8e2c61-97aa-4a52-8d0e-1f7c3e2b4a11',
    );
    expect(within(running).getByTestId('status-badge')).toHaveTextContent('Running');
    expect(within(running).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '63');
    expect(within(rows[0] as HTMLElement).getByTestId('status-badge')).toHaveAttribute('data-status', 'finished');
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });

  it('invites the user to create the first comparison when there is none', async () => {
    server.use(
      http.get('*/api/v1/comparisons', () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })),
    );
    renderWithProviders(<ComparisonsList />, { path: '/comparisons', routePath: '/comparisons' });
    expect(await screen.findByRole('heading', { name: 'No comparisons yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New comparison' })).toHaveAttribute('href', '/comparisons/new');
  });

  it('asks for the page in the URL', async () => {
    let requestedPage: string | null = null;
    server.use(
      http.get('*/api/v1/comparisons', ({ request }) => {
        requestedPage = new URL(request.url).searchParams.get('page');
        return HttpResponse.json({ ...comparisonsPageFixture, previous: 'http://x/?page=1' });
      }),
    );
    renderWithProviders(<ComparisonsList />, { path: '/comparisons?page=2', routePath: '/comparisons' });
    await screen.findAllByTestId('comparison-row');
    expect(requestedPage).toBe('2');
    expect(screen.getByRole('button', { name: 'Previous' })).toBeEnabled();
  });
});
