import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiToken } from '@/lib/api-types';
import { meFixture } from '@/testing/fixtures';
import { server } from '@/testing/mocks/server';
import { mockSettings } from '@/testing/mocks/settings-handlers';
import { renderWithProviders } from '@/testing/test-utils';
import { ApiTokensPage } from './api-tokens-page';

const existing: ApiToken = {
  id: '70000000-0000-4000-8000-0000000000aa', name: 'nightly bench', prefix: 'llt_Old0k3n1', scopes: ['ci', 'read'],
  created_by: 'ada', created_at: '2026-11-01T09:00:00Z', last_used_at: '2026-11-19T23:00:00Z',
  expires_at: null, revoked_at: null, status: 'active',
};

describe('API tokens page', () => {
  afterEach(() => vi.restoreAllMocks());

  it('creates a token, shows its secret once with focus on it, lists it, and revokes after confirmation', async () => {
    const settings = mockSettings({ tokens: [existing] });
    server.use(...settings.handlers);
    const { user } = renderWithProviders(<ApiTokensPage me={meFixture} />, { path: '/tokens', routePath: '/tokens' });
    const table = await screen.findByRole('table', { name: 'API tokens' });
    expect(within(table).getByRole('rowheader', { name: /nightly bench/ })).toBeInTheDocument();
    expect(within(table).getByText('never', { selector: 'td' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('Name'), 'GitHub Actions');
    await user.click(screen.getByRole('checkbox', { name: /write/ }));
    await user.selectOptions(screen.getByLabelText('Expires after'), '30');
    await user.click(screen.getByRole('button', { name: 'Create token' }));

    const secretBox = await screen.findByTestId('new-api-token');
    expect(secretBox).toHaveTextContent('it will not be shown again');
    const secret = within(secretBox).getByRole('textbox');
    expect(secret).toHaveValue('llt_N3wT0k3n-the-secret-shown-once-0123456789');
    expect(secret).toHaveFocus();
    expect(settings.state.tokenRequests).toEqual([
      { name: 'GitHub Actions', scopes: ['read', 'ci', 'write'], expires_in_days: 30 },
    ]);
    expect(await within(table).findByRole('rowheader', { name: /GitHub Actions/ })).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveValue('');

    await user.click(within(secretBox).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('new-api-token')).not.toBeInTheDocument();
    expect(document.body).not.toHaveTextContent('the-secret-shown-once');

    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await user.click(screen.getByRole('button', { name: 'Revoke nightly bench' }));
    expect(settings.state.revoked).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Revoke nightly bench' }));
    const row = await screen.findByTestId('api-token-llt_Old0k3n1');
    await waitFor(() => expect(within(row).getByText('Revoked')).toBeInTheDocument());
    expect(confirm).toHaveBeenCalledTimes(2);
    expect(settings.state.revoked).toEqual([existing.id]);
    expect(within(row).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
  });

  it('shows the server’s messages at the fields and creates nothing', async () => {
    const settings = mockSettings();
    server.use(...settings.handlers);
    const { user } = renderWithProviders(<ApiTokensPage me={meFixture} />, { path: '/tokens', routePath: '/tokens' });
    expect(await screen.findByText(/No API token yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create token' }));
    const name = screen.getByLabelText('Name');
    await waitFor(() => expect(name).toHaveAccessibleDescription('Give the token a name (1–100 characters).'));
    expect(name).toHaveAttribute('aria-invalid', 'true');

    await user.type(name, 'x');
    await user.click(screen.getByRole('checkbox', { name: /read/ }));
    await user.click(screen.getByRole('checkbox', { name: /ci/ }));
    await user.selectOptions(screen.getByLabelText('Expires after'), 'never');
    await user.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByRole('group', { name: 'Scopes' })).toHaveAccessibleDescription(
      'Choose one or more of ci, read, write.',
    );
    expect(settings.state.tokenRequests.at(-1)).toEqual({ name: 'x', scopes: [], expires_in_days: null });
    expect(settings.state.tokens).toEqual([]);
  });

  it('tells members that only owners and admins manage tokens, without asking for them', async () => {
    const settings = mockSettings({ tokens: [existing] });
    const listed = vi.fn();
    server.use(...settings.handlers, http.get('*/api/v1/tokens', () => { listed(); return HttpResponse.json([]); }));
    renderWithProviders(<ApiTokensPage me={{ ...meFixture, role: 'member' }} />);
    expect(await screen.findByText(/Only owners and admins/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create token' })).not.toBeInTheDocument();
    expect(listed).not.toHaveBeenCalled();
  });

  it('marks expired and revoked tokens, with nothing left to revoke', async () => {
    const expired: ApiToken = { ...existing, id: '70000000-0000-4000-8000-0000000000bb', name: 'old ci',
      prefix: 'llt_Exp1red0', expires_at: '2026-10-01T00:00:00Z', status: 'expired' };
    const revoked: ApiToken = { ...existing, id: '70000000-0000-4000-8000-0000000000cc', name: 'leaked',
      prefix: 'llt_Rev0ked0', revoked_at: '2026-11-02T00:00:00Z', status: 'revoked' };
    server.use(...mockSettings({ tokens: [existing, expired, revoked] }).handlers);
    renderWithProviders(<ApiTokensPage me={meFixture} />);
    const expiredRow = await screen.findByTestId('api-token-llt_Exp1red0');
    expect(within(expiredRow).getByText('Expired')).toHaveAttribute('data-status', 'expired');
    expect(within(expiredRow).queryByRole('button')).not.toBeInTheDocument();
    const revokedRow = screen.getByTestId('api-token-llt_Rev0ked0');
    expect(within(revokedRow).getByText('Revoked')).toBeInTheDocument();
    expect(within(revokedRow).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Revoke/ })).toHaveLength(1);
  });

  it('shows a load error', async () => {
    server.use(http.get('*/api/v1/tokens', () => HttpResponse.json({ detail: 'Database is down.' }, { status: 503 })));
    renderWithProviders(<ApiTokensPage me={meFixture} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load API tokens: Database is down.');
  });
});
