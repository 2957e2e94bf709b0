import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { mockSettings, networkProfileBoundsFixture } from '@/testing/mocks/settings-handlers';
import { renderWithProviders } from '@/testing/test-utils';
import { NetworkProfilesPage } from './network-profiles-page';
import { describeBounds } from './number-field';

const renderPage = () =>
  renderWithProviders(<NetworkProfilesPage />, { path: '/network-profiles', routePath: '/network-profiles' });

describe('network profiles page', () => {
  it('lists the built-in presets as read-only and the organization’s own profiles with their parameters', async () => {
    server.use(...mockSettings().handlers);
    renderPage();
    const presets = await screen.findByRole('table', { name: 'Built-in presets' });
    const lte = within(presets).getByRole('row', { name: /^lte/ });
    expect(lte).toHaveTextContent('Built-in');
    expect(lte).toHaveTextContent('12,000 kbit/s');
    expect(lte).toHaveTextContent('70 ms');
    expect(within(presets).queryByRole('button')).not.toBeInTheDocument();
    const own = screen.getByRole('table', { name: "Your organization's profiles" });
    const wifi = within(own).getByTestId('profile-office-wifi');
    expect(wifi).toHaveTextContent("the lab's Wi-Fi at 5 pm");
    expect(wifi).toHaveTextContent('12 ms · ± 4 ms jitter · 0.5 % loss · 20,000 kbit/s');
    expect(wifi).toHaveTextContent('12 ms · ± 4 ms jitter · 0.5 % loss · 5,000 kbit/s');
    expect(wifi).toHaveTextContent('none');
    expect(within(own).queryByText('lte')).not.toBeInTheDocument();
  });

  it('says when the organization has no profile of its own', async () => {
    const settings = mockSettings();
    settings.state.profiles = settings.state.profiles.filter((profile) => profile.built_in);
    server.use(...settings.handlers);
    renderPage();
    expect(await screen.findByText(/No profile of your own yet/)).toBeInTheDocument();
  });

  it('shows each field’s bounds from the server and its 400 message at the field, then creates', async () => {
    const settings = mockSettings();
    server.use(...settings.handlers);
    const { user } = renderPage();
    const form = await screen.findByRole('form', { name: 'New network profile' });
    const down = within(form).getByRole('group', { name: /Downlink/ });
    const delay = within(down).getByLabelText('Delay (ms)');
    expect(delay).toHaveAccessibleDescription('0–60,000 ms, default 0');
    expect(within(down).getByLabelText('Rate (kbit/s)')).toHaveAccessibleDescription(
      '8–100,000,000 kbit/s, empty: unlimited',
    );

    await user.type(within(form).getByLabelText('Name'), 'flaky-4g');
    await user.type(delay, '70000');
    await user.type(within(down).getByLabelText('Loss (%)'), '1.5');
    await user.type(within(form).getByRole('group', { name: /Uplink/ }).querySelector('input')!, '40');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    await waitFor(() =>
      expect(delay).toHaveAccessibleDescription(
        '0–60,000 ms, default 0 Ensure this value is less than or equal to 60000.',
      ),
    );
    expect(delay).toHaveAttribute('aria-invalid', 'true');
    expect(settings.state.profiles.map((profile) => profile.name)).not.toContain('flaky-4g');

    await user.clear(delay);
    await user.type(delay, '40');
    await user.click(within(form).getByRole('button', { name: 'Add a blackout' }));
    await user.type(within(form).getByLabelText('Every (s)'), '30');
    await user.type(within(form).getByLabelText('For (s)'), '2');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    const own = await screen.findByRole('table', { name: "Your organization's profiles" });
    const row = within(own).getByTestId('profile-flaky-4g');
    expect(row).toHaveTextContent('40 ms · 1.5 % loss · unlimited · queue 1,000 packets');
    expect(row).toHaveTextContent('2 s every 30 s');
    expect(settings.state.profileRequests.at(-1)).toEqual({
      name: 'flaky-4g', description: '',
      spec: { down: { delay_ms: 40, loss_pct: 1.5 }, up: { delay_ms: 40 }, blackouts: [{ every_s: 30, duration_s: 2 }] },
    });
    expect(within(form).getByLabelText('Name')).toHaveFocus();
    expect(within(form).getByLabelText('Name')).toHaveValue('');
  }, 30_000); // much typing: generous on a shared, loaded machine

  it('offers the advanced fields folded away, opens them at a server error, and sends them', async () => {
    const settings = mockSettings();
    server.use(...settings.handlers);
    const { user } = renderPage();
    const form = await screen.findByRole('form', { name: 'New network profile' });
    const advanced = within(form).getByText(/^Advanced:/).closest('details') as HTMLDetailsElement;
    expect(advanced.open).toBe(false);
    await user.click(within(advanced).getByText(/^Advanced:/));
    expect(advanced.open).toBe(true);
    const down = within(advanced).getByRole('group', { name: /^Advanced, downlink/ });
    expect(within(down).getByLabelText('Jitter correlation (%)')).toHaveAccessibleDescription(
      /^0–100 %, default 0;/,
    );
    await user.type(within(form).getByLabelText('Name'), 'bursty');
    await user.type(within(down).getByLabelText('Jitter correlation (%)'), '25');
    await user.click(within(down).getByRole('checkbox', { name: /Reorder packets/ }));
    // Gilbert-Elliott without its parameters: the server's message shows at the Gilbert-Elliott group.
    await user.selectOptions(within(down).getByLabelText('Loss model'), 'gilbert_elliott');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    const gilbert = await within(down).findByRole('group', { name: /^Gilbert-Elliott loss/ });
    await waitFor(() => expect(gilbert).toHaveAccessibleDescription('Required when loss_model is gilbert_elliott (or burst).'));

    // Fold it: it reopens by itself when the server names one of its fields.
    await user.click(within(advanced).getByText(/^Advanced:/));
    expect(advanced.open).toBe(false);
    await user.click(within(advanced).getByText(/^Advanced:/));
    const p = within(gilbert).getByLabelText('p, good → bad (%)');
    expect(p).toHaveAccessibleDescription('0–100 %');
    await user.type(p, '150');
    await user.click(within(advanced).getByText(/^Advanced:/));
    expect(advanced.open).toBe(false);
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    await waitFor(() => expect(advanced.open).toBe(true));
    await waitFor(() => expect(p).toHaveAccessibleDescription('0–100 % Ensure this value is less than or equal to 100.'));
    expect(p).toHaveAttribute('aria-invalid', 'true');
    expect(settings.state.profiles.map((profile) => profile.name)).not.toContain('bursty');

    await user.clear(p);
    await user.type(p, '2');
    await user.type(within(advanced).getByLabelText('Random seed (integer)'), '7');
    await user.click(within(form).getByRole('button', { name: 'Add a blackout' }));
    await user.type(within(form).getByLabelText('Every (s)'), '30');
    await user.type(within(form).getByLabelText('For (s)'), '2');
    await user.type(within(form).getByLabelText('First after (s)'), '5');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    await within(await screen.findByRole('table', { name: "Your organization's profiles" })).findByTestId('profile-bursty');
    expect(settings.state.profileRequests.at(-1)).toEqual({
      name: 'bursty', description: '',
      spec: {
        down: { jitter_correlation_pct: 25, reorder: true, loss_model: 'gilbert_elliott', gilbert: { p: 2 } },
        up: {},
        blackouts: [{ every_s: 30, duration_s: 2, offset_s: 5 }],
        seed: 7,
      },
    });
  }, 40_000); // much typing: generous on a shared, loaded machine

  it('shows a load error', async () => {
    server.use(http.get('*/api/v1/network-profiles', () => HttpResponse.json({ detail: 'Nope.' }, { status: 500 })));
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load network profiles: Nope.');
  });

  it('describes bounds as the server gives them', () => {
    expect(describeBounds(networkProfileBoundsFixture.direction['queue_packets'], 'packets')).toBe(
      '1–1,000,000 packets, default 1,000',
    );
    expect(describeBounds(networkProfileBoundsFixture.blackout['duration_s'], 's')).toBe('0.01–3,600 s');
    expect(describeBounds(undefined, 'ms')).toBe('');
  });
});
