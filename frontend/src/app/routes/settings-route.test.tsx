import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeRoutes } from '@/app/router';
import type { ApiToken } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { mockSettings } from '@/testing/mocks/settings-handlers';
import { renderRoutes } from '@/testing/test-utils';

const existing: ApiToken = {
  id: '70000000-0000-4000-8000-0000000000aa', name: 'nightly bench', prefix: 'llt_Old0k3n1', scopes: ['ci', 'read'],
  created_by: 'ada', created_at: '2026-11-01T09:00:00Z', last_used_at: null,
  expires_at: null, revoked_at: null, status: 'active',
};

describe('settings pages', () => {
  it('is reached from the top bar through Settings and its sub-navigation', async () => {
    server.use(...mockSettings({ tokens: [existing] }).handlers);
    const { user } = renderRoutes(makeRoutes, '/comparisons');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('link', { name: 'Settings' }));
    const settings = await screen.findByRole('navigation', { name: 'Settings' });
    expect(within(settings).getByRole('link', { name: 'Organization' })).toHaveAttribute('aria-current', 'page');
    await user.click(within(settings).getByRole('link', { name: 'Network profiles' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Network profiles' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'true');
    await user.click(within(screen.getByRole('navigation', { name: 'Settings' })).getByRole('link', { name: 'API tokens' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'API tokens' })).toBeInTheDocument();
    expect(await screen.findByRole('rowheader', { name: /nightly bench/ })).toBeInTheDocument();
  });

  it('answers /webhooks with its page under the same sub-navigation', async () => {
    server.use(...mockSettings().handlers);
    renderRoutes(makeRoutes, '/webhooks');
    expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeInTheDocument();
    const settings = screen.getByRole('navigation', { name: 'Settings' });
    expect(within(settings).getByRole('link', { name: 'Webhooks' })).toHaveAttribute('aria-current', 'page');
  });
});
