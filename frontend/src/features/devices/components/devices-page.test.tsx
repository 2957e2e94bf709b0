import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { poolsFixture, devicesPageFixture } from '@/testing/fixtures/devices';
import { mockLab } from '@/testing/mocks/devices-handlers';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { DevicesPage } from './devices-page';

let lab: ReturnType<typeof mockLab>;

beforeEach(() => {
  lab = mockLab();
  server.use(...lab.handlers);
});
afterEach(() => vi.restoreAllMocks());

const renderPage = () => renderWithProviders(<DevicesPage />, { path: '/devices', routePath: '/devices' });
const row = async (serial: string) => screen.findByTestId(`device-${serial}`);

describe('devices page', () => {
  it('shows every device with platform, model, OS, state, health, last seen and why it waits', async () => {
    renderPage();
    const table = await screen.findByRole('table', { name: 'Devices' });
    expect(within(table).getAllByRole('row')).toHaveLength(devicesPageFixture.results.length + 1);

    const pixel = await row('R5CT1234');
    expect(within(pixel).getByRole('rowheader')).toHaveTextContent('Pixel 8Android 14 · R5CT1234');
    expect(within(pixel).getByTestId('device-state')).toHaveTextContent('Available');
    expect(pixel).toHaveTextContent('87 % · charging');
    expect(pixel).toHaveTextContent('31.5 °C');
    expect(pixel).toHaveTextContent('mac-mini-3');
    expect(within(pixel).getByTitle('2025-11-20T10:00:05Z')).toHaveTextContent('20 Nov 2025');

    const galaxy = await row('RFCX21');
    expect(within(galaxy).getByTestId('device-state')).toHaveAttribute('data-state', 'not_ready');
    expect(galaxy).toHaveTextContent('Not ready');
    expect(galaxy).toHaveTextContent('battery 32 % < 50 %');
    expect(galaxy).toHaveTextContent('32 %');
    expect(galaxy).not.toHaveTextContent('charging');

    expect(await row('R3CN9988')).toHaveTextContent('Unauthorizedadb: device unauthorized');
    const iphone = await row('00008120-001A2B3C4D5E6F70');
    expect(iphone).toHaveTextContent('iOS 17.5');
    expect(iphone).toHaveTextContent('Quarantined3 consecutive infrastructure failures — timeout: fastlane ran past 900 s');
  });

  it("marks a phone simulator's device as the JVM stand-in it is, and only that device", async () => {
    Object.assign(lab.state.devices[0]!, { stand_in: 'jvm' });
    renderPage();
    const simulated = await row(lab.state.devices[0]!.serial);
    expect(within(within(simulated).getByRole('rowheader')).getByTestId('stand-in-tag')).toHaveTextContent(
      'simulated phone (JVM stand-in)',
    );
    expect(within(await row('RFCX21')).queryByTestId('stand-in-tag')).toBeNull();
  });

  it('links each device to its recent runs, with how they ended', async () => {
    renderPage();
    const pixel = await row('R5CT1234');
    const links = within(pixel).getAllByRole('link');
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '/comparisons/7d4f9a52-3c1e-4b8a-9d2f-5e6a7b8c9d01',
      '/comparisons/8e5a0b63-4d2f-4c9b-8e30-6f7b8c9d0e12',
    ]);
    expect(pixel).toHaveTextContent('ok · attempt 2');
    expect(pixel).toHaveTextContent('infra error');
    expect(pixel).toHaveTextContent('device_lost: device disappeared during block 3');
    expect(await row('RFCX21')).toHaveTextContent('none yet');
  });

  it('lets an admin release a quarantined device', async () => {
    const { user } = renderPage();
    const iphone = await row('00008120-001A2B3C4D5E6F70');
    await user.click(within(iphone).getByRole('button', { name: 'Release from quarantine' }));
    expect(await within(await row('00008120-001A2B3C4D5E6F70')).findByText('Available')).toBeInTheDocument();
    expect(lab.state.released).toEqual(['a1000000-0000-4000-8000-000000000003']);
    expect(within(await row('00008120-001A2B3C4D5E6F70')).queryByRole('button', { name: /Release/ })).toBeNull();
  });

  it('disables the release, with the reason, for those who may not release', async () => {
    renderPage();
    const hosted = await row('00008110-0011223344556677');
    const button = within(hosted).getByRole('button', { name: 'Release from quarantine' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription('LatencyLab releases devices of hosted pools.');
    // Devices that are not quarantined have nothing to release.
    expect(within(await row('R5CT1234')).queryByRole('button', { name: /Release/ })).toBeNull();
  });

  it('tells a member that only owners and admins release devices and create enrollment tokens', async () => {
    server.use(
      http.get('*/api/v1/devices', () =>
        HttpResponse.json({
          ...devicesPageFixture,
          results: devicesPageFixture.results.map((device) => ({ ...device, can_release: false })),
        }),
      ),
      http.get('*/api/v1/pools', () => HttpResponse.json(poolsFixture.map((pool) => ({ ...pool, can_manage: false })))),
    );
    renderPage();
    const iphone = await row('00008120-001A2B3C4D5E6F70');
    expect(within(iphone).getByRole('button', { name: 'Release from quarantine' })).toHaveAccessibleDescription(
      'Only an owner or admin of the organization can release it.',
    );
    const enrollment = screen.getByRole('heading', { name: 'Enrollment tokens' }).parentElement!;
    expect(await within(enrollment).findByText(/Only owners and admins of the organization/)).toBeInTheDocument();
    expect(within(enrollment).queryByRole('button', { name: 'Create enrollment token' })).toBeNull();
  });

  it('shows a device history of state changes with reasons', async () => {
    const { user } = renderPage();
    const iphone = await row('00008120-001A2B3C4D5E6F70');
    await user.click(within(iphone).getByRole('button', { name: 'History of 00008120-001A2B3C4D5E6F70' }));
    const history = await screen.findByRole('table', { name: 'State changes of 00008120-001A2B3C4D5E6F70' });
    const rows = within(history).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[1]!.textContent)).toEqual([
      'busy → quarantined',
      'available → busy',
      'offline → available',
    ]);
    expect(screen.getByText(/3 infrastructure failures in a row:/)).toBeInTheDocument();
  });

  it('lists runners with version, drivers and last heartbeat, and pools with their devices by state', async () => {
    renderPage();
    const runner = await screen.findByTestId('runner-mac-mini-3');
    expect(runner).toHaveTextContent('mac-mini-3mac-mini-3.lab');
    expect(runner).toHaveTextContent('0.2.0');
    expect(runner).toHaveTextContent('android, ios');
    expect(within(runner).getByTitle('2025-11-20T10:00:05Z')).toBeInTheDocument();
    expect(screen.getByTestId('pool-lab-zurich')).toHaveTextContent(
      '1 available · 1 busy · 1 not ready · 1 unauthorized · 1 quarantined',
    );
    expect(screen.getByTestId('pool-hosted-eu')).toHaveTextContent('hosted');
  });

  it("shows each runner's lab breaker, and lets an admin reset a tripped one", async () => {
    const { user } = renderPage();
    const tripped = await screen.findByTestId('runner-mac-mini-3');
    expect(within(tripped).getByTestId('breaker-tripped')).toHaveTextContent(
      "Tripped: its devices take no runs3 consecutive lab faults — build_failure: the harness did not build",
    );
    expect(tripped).toHaveTextContent("lab_fault: the lab's reference target 192.168.10.1:8443 (arm 'h2') unreachable");
    expect(within(await screen.findByTestId('runner-lab-1')).getByTestId('breaker-closed')).toHaveTextContent(
      'OK (1 lab fault in a row)',
    );
    expect(within(await screen.findByTestId('runner-eu-farm-7')).getByTestId('breaker-closed')).toHaveTextContent(
      /^OK$/,
    );

    await user.click(within(tripped).getByRole('button', { name: 'Reset breaker' }));
    await waitFor(() => expect(lab.state.resetBreakers).toEqual(['0b6f3a10-7c2d-4e8f-9a01-23456789abcd']));
    await waitFor(() =>
      expect(within(screen.getByTestId('runner-mac-mini-3')).getByTestId('breaker-closed')).toHaveTextContent('OK'),
    );
  });

  it('creates an enrollment token, shows its secret once with a copy button, and revokes tokens', async () => {
    const { user } = renderPage();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });

    const tokens = await screen.findByRole('table', { name: 'Enrollment tokens of lab-zurich' });
    expect(within(tokens).getAllByRole('row')).toHaveLength(3);
    await user.type(screen.getByLabelText('Label (optional)'), 'mac mini 4');
    await user.clear(screen.getByLabelText('Expires after (days)'));
    await user.type(screen.getByLabelText('Expires after (days)'), '3');
    await user.click(screen.getByRole('button', { name: 'Create enrollment token' }));

    const secret = await screen.findByTestId('new-enrollment-token');
    expect(secret).toHaveTextContent('Copy this token now: it is not shown again.');
    const field = within(secret).getByLabelText(/Copy this token now/);
    expect(field).toHaveValue('lle_N3wT0k3n-secret-shown-once-0123456789abcdef');
    await user.click(within(secret).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('lle_N3wT0k3n-secret-shown-once-0123456789abcdef');
    expect(await within(secret).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(lab.state.createdTokens).toEqual([{ name: 'mac mini 4', expires_in_days: 3 }]);

    // Listed without its secret; gone from the page once dismissed.
    expect(await within(tokens).findByText('lle_N3wT0k3n…')).toBeInTheDocument();
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    expect(screen.queryByDisplayValue(/secret-shown-once/)).toBeNull();

    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await user.click(within(tokens).getByRole('button', { name: 'Revoke lle_Zx81q2Wm' }));
    expect(confirm).toHaveBeenLastCalledWith(expect.stringContaining('runners it enrolled keep working'));
    expect(lab.state.revoked).toEqual([]);
    await user.click(within(tokens).getByRole('button', { name: 'Revoke lle_Zx81q2Wm' }));
    await waitFor(() => expect(lab.state.revoked).toEqual(['e1000000-0000-4000-8000-000000000001']));
    expect(await within(tokens).findAllByText('revoked')).toHaveLength(2);
  });
});
