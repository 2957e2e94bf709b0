import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { meFixture } from '@/testing/fixtures';
import { renderRoutes } from '@/testing/test-utils';
import { mockBackend } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { makeRoutes } from '../router';

describe('routing', () => {
  it('sends an anonymous visitor to the login page and back after signing in', async () => {
    mockBackend.signedIn = false;
    const { user, router } = renderRoutes(makeRoutes, '/comparisons');

    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?next=%2Fcomparisons');

    await user.type(screen.getByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Comparisons', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/comparisons');
  });

  it('offers sign-up only while the server has it open', async () => {
    mockBackend.signedIn = false;
    renderRoutes(makeRoutes, '/login');
    expect(await screen.findByRole('link', { name: 'Create an organization' })).toHaveAttribute('href', '/signup');
  });

  it('says sign-up is closed, and offers no link to it, on an invitation-only server', async () => {
    mockBackend.signedIn = false;
    mockBackend.signupOpen = false;
    const { user } = renderRoutes(makeRoutes, '/signup');
    expect(await screen.findByRole('heading', { name: 'Sign-up is closed' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create account' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create an organization' })).not.toBeInTheDocument();
  });

  it('shows the signed-in user and signs out', async () => {
    const { user, router } = renderRoutes(makeRoutes, '/');
    expect(await screen.findByText(/ada · Acme Mobile/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('offers New comparison in the top bar to a member', async () => {
    renderRoutes(makeRoutes, '/');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(await within(nav).findByRole('link', { name: 'New comparison' })).toHaveAttribute('href', '/comparisons/new');
  });

  it('does not offer it to a viewer, who may not start one', async () => {
    server.use(http.get('*/api/v1/auth/me', () => HttpResponse.json({ ...meFixture, role: 'viewer' })));
    renderRoutes(makeRoutes, '/');
    expect(await screen.findByText(/ada · Acme Mobile/)).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Trends' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'New comparison' })).not.toBeInTheDocument();
  });
});
