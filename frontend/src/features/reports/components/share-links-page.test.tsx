import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { shareLink } from '../testing/fixtures';
import { ShareLinksPage } from './share-links-page';

describe('share links page', () => {
  it('lists every link of the organization with its comparison, and revokes', async () => {
    const links = [
      shareLink(),
      shareLink({ id: 'b', prefix: 'lls_Expired00', state: 'expired', comparison: { id: 'c2', name: 'Payload sweep' } }),
    ];
    let revoked: string | undefined;
    server.use(
      http.get('*/api/v1/shares', () => HttpResponse.json({ count: 2, next: null, previous: null, results: links })),
      http.post('*/api/v1/comparisons/:id/shares/:shareId/revoke', ({ params }) => {
        revoked = String(params.shareId);
        return HttpResponse.json({ ...links[0], state: 'revoked' });
      }),
    );
    const { user } = renderWithProviders(<ShareLinksPage />);
    const table = await screen.findByRole('table', { name: 'Share links of the organization' });
    expect(within(table).getByRole('link', { name: 'Payload sweep' })).toHaveAttribute('href', '/comparisons/c2');
    expect(within(table).getByText('Expired')).toBeInTheDocument();
    // Only the active link can be revoked.
    const buttons = within(table).getAllByRole('button', { name: /Revoke share link/ });
    expect(buttons).toHaveLength(1);
    await user.click(buttons[0] as HTMLElement);
    expect(revoked).toBe(links[0]?.id);
  });

  it('explains how to create one when there is none', async () => {
    server.use(http.get('*/api/v1/shares', () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })));
    renderWithProviders(<ShareLinksPage />);
    expect(await screen.findByRole('heading', { name: 'No share links yet' })).toBeInTheDocument();
  });
});
