import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { COMPARISON_ID, shareLink } from '../testing/fixtures';
import type { ShareLink } from '../types';
import { SharePanel } from './share-panel';

const page = (results: ShareLink[]) => ({ count: results.length, next: null, previous: null, results });

/** A tiny backend for one comparison's links: list, create (the URL once), revoke. */
function serveLinks(initial: ShareLink[]) {
  const links = [...initial];
  const created: unknown[] = [];
  server.use(
    http.get('*/api/v1/comparisons/:id/shares', () => HttpResponse.json(page(links))),
    http.post('*/api/v1/comparisons/:id/shares', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      created.push(body);
      const link = shareLink({ id: `link-${links.length}`, prefix: 'lls_NewLink12', expires_at: body.expires_in_days ? '2026-11-27T10:00:00Z' : null });
      links.unshift(link);
      return HttpResponse.json({ ...link, token: 'lls_NewLink12secret', url: 'http://testserver/r/lls_NewLink12secret' }, { status: 201 });
    }),
    http.post('*/api/v1/comparisons/:id/shares/:shareId/revoke', ({ params }) => {
      const index = links.findIndex((link) => link.id === params.shareId);
      links[index] = { ...(links[index] as ShareLink), state: 'revoked', revoked_at: '2026-11-21T00:00:00Z' };
      return HttpResponse.json(links[index]);
    }),
  );
  return { links, created };
}

describe('share panel', () => {
  it('says so when there are no links yet', async () => {
    serveLinks([]);
    renderWithProviders(<SharePanel comparisonId={COMPARISON_ID} />);
    expect(await screen.findByText('No share links yet.')).toBeInTheDocument();
    // The report's downloads live in one place, the page's Downloads section: the panel points there.
    expect(screen.getByRole('link', { name: 'Downloads' })).toHaveAttribute('href', '#downloads');
    expect(screen.queryByRole('link', { name: /PDF|HTML/ })).not.toBeInTheDocument();
  });

  it('creates a link with an expiry and shows its URL once, to copy', async () => {
    const backend = serveLinks([]);
    const { user } = renderWithProviders(<SharePanel comparisonId={COMPARISON_ID} />);
    await screen.findByText('No share links yet.');
    await user.selectOptions(screen.getByLabelText('Link expires'), 'In 7 days');
    await user.click(screen.getByRole('button', { name: 'Create share link' }));
    const url = await screen.findByLabelText(/Copy this link now/);
    expect(url).toHaveValue('http://testserver/r/lls_NewLink12secret');
    expect(screen.getByText(/it is shown only once/)).toBeInTheDocument();
    expect(backend.created).toEqual([{ expires_in_days: 7 }]);
    // The list refreshes with the new link (its prefix only, never the token).
    const table = await screen.findByRole('table', { name: 'Share links of this comparison' });
    expect(within(table).getByText('lls_NewLink12…')).toBeInTheDocument();
    expect(within(table).queryByText(/secret/)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe('http://testserver/r/lls_NewLink12secret');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByLabelText(/Copy this link now/)).not.toBeInTheDocument();
  });

  it('lists who created each link and when it was last opened, and revokes', async () => {
    serveLinks([shareLink({ open_count: 3, last_opened_at: '2026-11-21T07:30:00Z', created_by: 'grace' })]);
    const { user } = renderWithProviders(<SharePanel comparisonId={COMPARISON_ID} />);
    const row = (await screen.findAllByTestId('share-link-row'))[0] as HTMLElement;
    expect(within(row).getByText('grace')).toBeInTheDocument();
    expect(within(row).getByText('3')).toBeInTheDocument();
    expect(within(row).getByText('Active')).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: 'Revoke share link lls_AbCdEfGh…' }));
    await waitFor(() => expect(within(screen.getByTestId('share-link-row')).getByText('Revoked')).toBeInTheDocument());
    expect(screen.queryByRole('button', { name: /Revoke share link/ })).not.toBeInTheDocument();
  });

  it('shows the API message when creating fails', async () => {
    serveLinks([]);
    server.use(
      http.post('*/api/v1/comparisons/:id/shares', () =>
        HttpResponse.json({ detail: 'Viewers cannot share comparisons; ask a member, admin or owner.' }, { status: 403 }),
      ),
    );
    const { user } = renderWithProviders(<SharePanel comparisonId={COMPARISON_ID} />);
    await screen.findByText('No share links yet.');
    await user.click(screen.getByRole('button', { name: 'Create share link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Viewers cannot share comparisons');
  });

  it('shows an error when the links cannot be loaded', async () => {
    server.use(http.get('*/api/v1/comparisons/:id/shares', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })));
    renderWithProviders(<SharePanel comparisonId={COMPARISON_ID} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the share links: Not found.');
  });
});
