import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { Me } from '@/lib/api-types';
import { meFixture } from '@/testing/fixtures';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { OrganizationSwitcher } from './organization-switcher';

const twoOrgs: Me = {
  ...meFixture,
  organizations: [
    { slug: 'acme', name: 'Acme Mobile', role: 'owner' },
    { slug: 'globex', name: 'Globex', role: 'viewer' },
  ],
};

describe('OrganizationSwitcher', () => {
  it('names the only organization without a menu', () => {
    renderWithProviders(<OrganizationSwitcher me={meFixture} />);
    expect(screen.getByText('Acme Mobile')).toBeInTheDocument();
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it('switches the session to another organization and goes home', async () => {
    const chosen: unknown[] = [];
    server.use(http.post('*/api/v1/auth/organization', async ({ request }) => {
      chosen.push(await request.json());
      return HttpResponse.json({ ...twoOrgs, organization: { slug: 'globex', name: 'Globex' }, role: 'viewer' });
    }));
    const { user, router } = renderWithProviders(<OrganizationSwitcher me={twoOrgs} />, {
      path: '/comparisons', routePath: '/comparisons', extraRoutes: [{ path: '/', element: <p>home</p> }],
    });
    const menu = screen.getByRole('combobox', { name: 'Organization' });
    expect(menu).toHaveValue('acme');
    await user.selectOptions(menu, 'globex');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(chosen).toEqual([{ slug: 'globex' }]);
  });
});
