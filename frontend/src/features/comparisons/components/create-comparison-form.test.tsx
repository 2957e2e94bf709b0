import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { CSRF_TOKEN, mockBackend } from '@/testing/mocks/handlers';
import { protocolValues } from '@/api/schema';
import { networkProfilesFixture, presetsFixture } from '@/testing/fixtures';
import { CreateComparisonForm } from './create-comparison-form';

function renderForm() {
  const onCreated = vi.fn();
  const utils = renderWithProviders(<CreateComparisonForm onCreated={onCreated} />);
  return { ...utils, onCreated };
}

// Typing into the whole builder (live check, YAML) takes a few seconds in jsdom on a busy machine.
describe('CreateComparisonForm', () => {
  it('preselects the MID preset and fills the form from its spec', async () => {
    renderForm();
    const mid = await screen.findByRole('radio', { name: /MID image series/ });
    expect(mid).toBeChecked();
    expect(screen.getAllByRole('radio')).toHaveLength(4);
    expect(screen.getByLabelText('Label of arm 1')).toHaveValue('https-h1');
    expect(screen.getByLabelText('Protocol of arm 2')).toHaveValue('h2');
    expect(screen.getByLabelText('Blocks')).toHaveValue('6');
    expect(screen.getByLabelText('Periods (requests per series)')).toHaveValue('3, 6, 9, 12, 15, 18, 21, 24, 27, 30');
    expect(screen.getByLabelText('Baseline arm')).toHaveValue('https-h1');
  });

  it('submits the edited spec with the CSRF header and reports the created comparison', async () => {
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });

    await user.type(screen.getByLabelText('Name (optional)'), 'Smoke test');
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), '2');
    await user.clear(screen.getByLabelText('Periods (requests per series)'));
    await user.type(screen.getByLabelText('Periods (requests per series)'), '3, 6');
    await user.clear(screen.getByLabelText('Repetitions per period'));
    await user.type(screen.getByLabelText('Repetitions per period'), '3');
    await user.click(screen.getByRole('button', { name: 'Add arm' }));
    await user.clear(screen.getByLabelText('Label of arm 3'));
    await user.type(screen.getByLabelText('Label of arm 3'), 'h3');
    await user.selectOptions(screen.getByLabelText('Connection of arm 3'), 'cold');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(mockBackend.lastCsrfHeader).toBe(CSRF_TOKEN);
    expect(mockBackend.created).toEqual([
      {
        name: 'Smoke test',
        preset: 'mid-image-series',
        arms: [
          { label: 'https-h1', protocol: 'h1', connection: 'warm' },
          { label: 'h2', protocol: 'h2', connection: 'warm' },
          { label: 'h3', protocol: 'h3', connection: 'cold' },
        ],
        baseline_arm: 'https-h1',
        network_profiles: ['none'],
        blocks: 2,
        workload: { kind: 'series', periods: [3, 6], repetitions: 3 },
      },
    ]);
  });

  it("shows the server's field errors next to the fields and as a list with their paths", async () => {
    server.use(
      http.post('*/api/v1/comparisons', () =>
        HttpResponse.json(
          {
            arms: { '1': { protocol: ['"h4" is not a valid choice.'] } },
            blocks: ['Ensure this value is less than or equal to 50.'],
          },
          { status: 400 },
        ),
      ),
    );
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), '99');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    const summary = await screen.findByRole('alert');
    expect(summary).toHaveTextContent('The comparison was not created');
    const items = within(summary).getAllByRole('listitem').map((item) => item.textContent);
    expect(items).toEqual([
      'arms.1.protocol: "h4" is not a valid choice.',
      'blocks: Ensure this value is less than or equal to 50.',
    ]);

    const blocks = screen.getByLabelText('Blocks');
    expect(blocks).toHaveAttribute('aria-invalid', 'true');
    expect(blocks).toHaveAccessibleDescription(/less than or equal to 50/);
    expect(screen.getByLabelText('Protocol of arm 2')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Protocol of arm 1')).not.toHaveAttribute('aria-invalid');
    expect(onCreated).not.toHaveBeenCalled();
  });

  it('sends a range of blocks as run until decided, and shows the server naming blocks.min', async () => {
    server.use(
      http.post('*/api/v1/comparisons', () =>
        HttpResponse.json({ blocks: { min: ['2–200 (a look needs 2 blocks for its t-test).'] } }, { status: 400 }),
      ),
    );
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), '1–24');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    const summary = await screen.findByRole('alert');
    expect(within(summary).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'blocks.min: 2–200 (a look needs 2 blocks for its t-test).',
    ]);
    expect(screen.getByLabelText('Blocks')).toHaveAttribute('aria-invalid', 'true');
  });

  it('takes auto and refuses blocks that are neither a number, a range nor auto', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), 'many');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    expect(await screen.findByText('Enter a whole number, a range like 6–24 or auto.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), 'auto');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(mockBackend.created.at(-1)).toMatchObject({ blocks: 'auto' }));
  });

  it('catches periods that are not numbers before sending anything', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.clear(screen.getByLabelText('Periods (requests per series)'));
    await user.type(screen.getByLabelText('Periods (requests per series)'), '3, six');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('workload.periods: Enter whole numbers');
    expect(mockBackend.created).toEqual([]);
  });

  it("offers the protocols of the API schema and the organization's own network profiles", async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    const protocols = within(screen.getByLabelText('Protocol of arm 1')).getAllByRole('option');
    expect(protocols.map((option) => option.getAttribute('value'))).toEqual([...protocolValues]);

    const profiles = screen.getByRole('group', { name: 'Network profiles' });
    const names = within(profiles).getAllByRole('checkbox').map((box) => box.closest('label')?.textContent);
    expect(names).toHaveLength(networkProfilesFixture.length);
    const own = within(profiles).getByRole('checkbox', { name: /office-wifi/ });
    expect(own.closest('label')).toHaveTextContent('own');
    expect(own.closest('label')).toHaveAttribute('title', "RTT 24 ms, 20000/5000 kbit/s, 0.5 % loss — custom: the lab's Wi-Fi at 5 pm");
    await user.click(own);
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(mockBackend.created).toHaveLength(1));
    expect(mockBackend.created[0]?.network_profiles).toEqual(['none', 'office-wifi']);
  });

  it('resets the arms when another preset is picked', async () => {
    const { user } = renderForm();
    await user.click(await screen.findByRole('radio', { name: /API calls and downloads/ }));
    expect(screen.getAllByTestId('arm-row')).toHaveLength(3);
    expect(screen.getByLabelText('Protocol of arm 3')).toHaveValue('grpc');
    expect(screen.queryByLabelText('Periods (requests per series)')).not.toBeInTheDocument();
  });
  it('runs on the selected pool, platforms and number of devices', async () => {
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    const platforms = screen.getByRole('group', { name: 'Platforms' });
    expect(within(platforms).getByRole('checkbox', { name: 'Host (Linux runner)' })).toBeChecked();
    await user.click(within(platforms).getByRole('checkbox', { name: 'iOS' }));
    await user.click(within(platforms).getByRole('checkbox', { name: 'Android' }));
    await user.clear(screen.getByLabelText('Devices per network profile'));
    await user.type(screen.getByLabelText('Devices per network profile'), '3');
    await screen.findByRole('option', { name: /Zurich lab \(lab-zurich\) · 5 devices/ });
    await user.selectOptions(screen.getByLabelText('Device pool'), 'lab-zurich');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    // In the API's order, whatever order they were ticked in.
    expect(mockBackend.created[0]?.devices).toEqual({ pool: 'lab-zurich', platforms: ['host', 'android', 'ios'], count: 3 });
  });

  it("shows the server's refusal of a platform that cannot measure an arm next to the platforms", async () => {
    const refusal = "ios devices cannot run arm 'https-h1' (h1): URLSession cannot be made to speak HTTP/1.1 to a server that offers HTTP/2. ios runs h2, h3, grpc; drop ios or that arm.";
    server.use(
      http.post('*/api/v1/comparisons', () => HttpResponse.json({ devices: { platforms: [refusal] } }, { status: 400 })),
    );
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.click(within(screen.getByRole('group', { name: 'Platforms' })).getByRole('checkbox', { name: 'iOS' }));
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    const messages = await screen.findAllByText(refusal, { exact: false });
    expect(messages.length).toBe(2); // in the summary (with its path) and under the platforms
    expect(screen.getByRole('alert')).toHaveTextContent('devices.platforms');
    expect(onCreated).not.toHaveBeenCalled();
  });

  it('needs at least one platform and a whole number of devices before asking the server', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.click(
      within(screen.getByRole('group', { name: 'Platforms' })).getByRole('checkbox', { name: 'Host (Linux runner)' }),
    );
    await user.clear(screen.getByLabelText('Devices per network profile'));
    await user.type(screen.getByLabelText('Devices per network profile'), 'two');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    expect(await screen.findByText('Pick at least one platform.')).toBeInTheDocument();
    expect(screen.getByLabelText('Devices per network profile')).toHaveAccessibleDescription('Enter a whole number.');
    expect(mockBackend.created).toEqual([]);
  });

  it("shows the preset's concurrency and sends another one only when it is changed", async () => {
    // The MID preset as the server now describes it: each series issued like NSURLSession on iOS.
    const presets = presetsFixture.map((preset) => {
      if (preset.name !== 'mid-image-series') return preset;
      const spec = preset.spec as { workload: Record<string, unknown> };
      return { ...preset, spec: { ...spec, workload: { ...spec.workload, concurrency: { parallel: 4 } } } };
    });
    server.use(http.get('*/api/v1/presets', () => HttpResponse.json(presets)));
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    const concurrency = screen.getByLabelText('Concurrency');
    expect(concurrency).toHaveValue('parallel 4');
    expect(within(concurrency).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'sequential', 'parallel 2', 'parallel 4', 'parallel 6', 'parallel 8', 'all',
    ]);

    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledTimes(1));
    expect(mockBackend.created[0]?.workload).not.toHaveProperty('concurrency'); // the preset's, unchanged

    await user.selectOptions(screen.getByLabelText('Concurrency'), 'sequential');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledTimes(2));
    expect(mockBackend.created[1]?.workload).toMatchObject({ kind: 'series', concurrency: 'sequential' });
  });

  it("shows the workload's default gate metric, lets the user choose another and sends it only then", async () => {
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    const metric = screen.getByLabelText('Gate metric');
    expect(metric).toHaveValue('');
    const options = () => within(screen.getByLabelText('Gate metric')).getAllByRole('option').map((o) => o.textContent);
    expect(options()).toEqual([
      'Default: series time (series_ms)',
      'Series time (series_ms)',
      'Per-request time (total_ms)',
      'Time to first byte (ttfb_ms)',
    ]);
    expect(screen.getByTestId('gate-metric-hint')).toHaveTextContent("Each series as a whole: what the app's user waits for.");

    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledTimes(1));
    expect(mockBackend.created[0]).not.toHaveProperty('gate'); // the server fills the series' default

    await user.selectOptions(metric, 'total_ms');
    expect(screen.getByTestId('gate-metric-hint')).toHaveTextContent('Each request on its own.');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledTimes(2));
    expect(mockBackend.created[1]?.gate).toEqual({ metric: 'total_ms' });

    // Another workload kind: its own metrics; series time, which it does not have, goes back to the default.
    await user.selectOptions(metric, 'series_ms');
    await user.selectOptions(screen.getByLabelText('Workload'), 'api');
    expect(screen.getByLabelText('Gate metric')).toHaveValue('');
    expect(options()).toEqual([
      'Default: per-request time (total_ms)',
      'Per-request time (total_ms)',
      'Time to first byte (ttfb_ms)',
    ]);
    await user.selectOptions(screen.getByLabelText('Workload'), 'requests');
    expect(options()[0]).toBe('Default: page load (page_load_ms)');
  });

  it("runs the MID series against two builds of the user's own server: endpoints per arm and object paths", async () => {
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.type(screen.getByLabelText('Endpoint of arm 1'), 'https://build-a.example.com');
    await user.type(screen.getByLabelText('Endpoint of arm 2'), '  https://build-b.example.com:8443 ');
    await user.type(screen.getByLabelText('Object paths on your server (optional)'), '/img/1.jpg{enter}{enter}  /img/2.jpg ');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    const spec = mockBackend.created[0];
    expect(spec?.arms).toEqual([
      { label: 'https-h1', protocol: 'h1', connection: 'warm', endpoint: 'https://build-a.example.com' },
      { label: 'h2', protocol: 'h2', connection: 'warm', endpoint: 'https://build-b.example.com:8443' },
    ]);
    expect(spec?.workload).toMatchObject({ kind: 'series', object_paths: ['/img/1.jpg', '/img/2.jpg'] });
  });

  it("sends a sweep's path template with GET, and shows the server's refusal of it at the field", async () => {
    server.use(
      http.post('*/api/v1/comparisons', () =>
        HttpResponse.json({ workload: { path: ['The path must contain {size} exactly once.'] } }, { status: 400 }),
      ),
    );
    const { user } = renderForm();
    await user.click(await screen.findByRole('radio', { name: /Payload sweep/ }));
    await user.type(screen.getByLabelText('Path on your server (optional)'), '/v1/blob');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    expect(await screen.findAllByText('The path must contain {size} exactly once.')).not.toHaveLength(0);
    expect(screen.getByLabelText('Path on your server (optional)')).toHaveAttribute('aria-invalid', 'true');
  });

  it("runs API calls and downloads against the user's own server: the call's path and the files", async () => {
    const sent = vi.fn<(body: { workload?: unknown }) => void>();
    server.use(
      http.post('*/api/v1/comparisons', async ({ request }) => {
        sent((await request.json()) as { workload?: unknown });
        return HttpResponse.json({ workload: { file_paths: { '1': ['A path (/…) or an http(s) URL.'] } } }, { status: 400 });
      }),
    );
    const { user } = renderForm();
    await user.click(await screen.findByRole('radio', { name: /API calls and downloads/ }));
    await user.type(screen.getByLabelText('API call path on your server (optional)'), '/v2/ping?build=a');
    await user.type(screen.getByLabelText('Downloads on your server (optional)'), '/img/1.jpg{enter}ftp://x/2.jpg');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    expect(await screen.findAllByText('A path (/…) or an http(s) URL.')).not.toHaveLength(0);
    expect(sent.mock.calls[0]?.[0]?.workload).toEqual({
      kind: 'mixed',
      path: '/v2/ping?build=a',
      file_paths: ['/img/1.jpg', 'ftp://x/2.jpg'],
    });
    // The server's refusal sits at the downloads, not at the call's path.
    expect(screen.getByLabelText('Downloads on your server (optional)')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('API call path on your server (optional)')).not.toHaveAttribute('aria-invalid');
  });

  it('leaves the workload to the preset when no path is given', async () => {
    const { user, onCreated } = renderForm();
    await user.click(await screen.findByRole('radio', { name: /OS-added latency/ }));
    expect(screen.getByLabelText('Path on your server (optional)')).toHaveValue('');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(mockBackend.created[0]).not.toHaveProperty('workload');
    expect(mockBackend.created[0]?.arms?.[0]).not.toHaveProperty('endpoint');
  });
});
