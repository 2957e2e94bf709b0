import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '@/testing/test-utils';
import { mockBackend } from '@/testing/mocks/handlers';
import { routes } from '../router';

describe('routing', () => {
  it('sends an anonymous visitor to the login page and back after signing in', async () => {
    mockBackend.signedIn = false;
    const { user, router } = renderRoutes(routes, '/comparisons');

    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?next=%2Fcomparisons');

    await user.type(screen.getByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Comparisons', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/comparisons');
  });

  it('shows the signed-in user and signs out', async () => {
    const { user, router } = renderRoutes(routes, '/');
    expect(await screen.findByText(/ada · Acme Mobile/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });
});
