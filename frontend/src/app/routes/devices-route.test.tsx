import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeRoutes } from '@/app/router';
import { mockLab } from '@/testing/mocks/devices-handlers';
import { server } from '@/testing/mocks/server';
import { renderRoutes } from '@/testing/test-utils';

describe('devices route', () => {
  it('is linked from the navigation and shows the lab', async () => {
    server.use(...mockLab().handlers);
    const { user, router } = renderRoutes(makeRoutes, '/comparisons');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('link', { name: 'Devices' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Devices' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/devices');
    expect(within(nav).getByRole('link', { name: 'Devices' })).toHaveClass('active');
    expect(await screen.findByTestId('device-R5CT1234')).toBeInTheDocument();
  });
});
