import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { parse } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { mockBackend } from '@/testing/mocks/handlers';
import { comparisonDetailFixture } from '@/testing/fixtures';
import { CreateComparisonForm } from './create-comparison-form';
import { estimateText } from './builder-summary';

function renderForm(fromId?: string) {
  const onCreated = vi.fn();
  const utils = renderWithProviders(<CreateComparisonForm onCreated={onCreated} fromId={fromId} />);
  return { ...utils, onCreated };
}

const yamlShown = () => parse(screen.getByTestId('spec-yaml').textContent ?? '') as Record<string, unknown>;

describe('comparison builder: live check, estimate and YAML', () => {
  it('checks the draft with the server as it is edited and shows the estimate beside the submit button', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    expect(await screen.findByText('1 run · 6 blocks · 1,200 requests · ≈ 4.0 device-minutes')).toBeInTheDocument();
    expect(screen.getByTestId('estimate')).toHaveTextContent('At 0.2 s per request: the median pace of your 3 latest finished comparisons.');

    await user.click(within(screen.getByRole('group', { name: 'Network profiles' })).getByRole('checkbox', { name: /office-wifi/ }));
    expect(await screen.findByText(/^2 runs · 12 blocks/)).toBeInTheDocument();
    // Only the latest draft, once typing paused, and exactly what submit would send.
    expect(mockBackend.validated.at(-1)?.network_profiles).toEqual(['none', 'office-wifi']);
    expect(mockBackend.created).toEqual([]);
  });

  it('warns, without refusing, when an endpoint does not resolve', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.type(screen.getByLabelText('Endpoint of arm 2'), 'https://api.typo.invalid');
    const warnings = await screen.findByTestId('spec-warnings');
    expect(warnings).toHaveTextContent("1 warning (it can still be submitted): arms.1.endpoint — api.typo.invalid does not resolve (arm 'h2').");
    expect(screen.getByTestId('estimate')).toHaveTextContent(/^1 run · 6 blocks/);
  });

  it("shows the dry run's refusal at the field before anything is submitted, and clears it when fixed", async () => {
    server.use(
      http.post('*/api/v1/comparisons/validate', async ({ request }) => {
        const spec = (await request.json()) as { blocks?: unknown };
        return spec.blocks === 99
          ? HttpResponse.json({ blocks: ['Ensure this value is less than or equal to 50.'] }, { status: 400 })
          : HttpResponse.json({ spec, estimate: { runs: 1, blocks_min: 9, blocks_max: 9, requests_min: 10, requests_max: 10, device_minutes_min: null, device_minutes_max: null, seconds_per_request: null, pace_basis: null, pace_comparisons: 0 }, warnings: [] });
      }),
    );
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), '99');

    const blocks = screen.getByLabelText('Blocks');
    await vi.waitFor(() => expect(blocks).toHaveAttribute('aria-invalid', 'true'));
    expect(blocks).toHaveAccessibleDescription(/less than or equal to 50/);
    expect(screen.getByTestId('estimate')).toHaveTextContent('1 problem to fix: blocks — Ensure this value');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument(); // nothing was submitted

    await user.clear(blocks);
    await user.type(blocks, '9');
    expect(await screen.findByText(/^1 run · 9 blocks · 10 requests$/)).toBeInTheDocument();
    expect(screen.getByTestId('estimate')).toHaveTextContent('estimated once a comparison of this organization has finished');
    expect(blocks).not.toHaveAttribute('aria-invalid');
    expect(onCreated).not.toHaveBeenCalled();
  });

  it('shows the spec as YAML, live, and copies it', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    expect(yamlShown()).toMatchObject({ preset: 'mid-image-series', blocks: 6 });
    expect(yamlShown()['name']).toEqual(expect.stringContaining('MID'));
    await user.type(screen.getByLabelText('Tags (optional)'), 'branch=main{enter}commit=abc123');
    await user.type(screen.getByLabelText('Seed (optional)'), '42');
    await user.selectOptions(screen.getByLabelText('Gate metric'), 'ttfb_ms');
    await user.type(screen.getByLabelText('Gate margin (%)'), '2.5');
    expect(yamlShown()).toMatchObject({
      tags: { branch: 'main', commit: 'abc123' },
      seed: 42,
      gate: { metric: 'ttfb_ms', margin_pct: 2.5 },
    });
    await user.click(screen.getByRole('button', { name: 'Copy YAML' }));
    expect(await screen.findByText('Copied.')).toBeInTheDocument();
    expect(parse(await navigator.clipboard.readText())).toEqual(yamlShown());
  });

  it('starts from scratch with any workload kind and sends its whole workload', async () => {
    const { user, onCreated } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.click(screen.getByRole('button', { name: 'Start from scratch' }));
    expect(screen.getAllByRole('radio').every((radio) => !(radio as HTMLInputElement).checked)).toBe(true);
    await user.selectOptions(screen.getByLabelText('Workload'), 'delay_sweep');
    await user.type(screen.getByLabelText('Last delay (ms)'), '200');
    await user.type(screen.getByLabelText('Step (ms)'), '50');
    await user.type(screen.getByLabelText('CA bundle of arm 2'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));

    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    const sent = mockBackend.created[0];
    expect(sent).not.toHaveProperty('preset');
    expect(sent?.workload).toEqual({ kind: 'delay_sweep', stop_ms: 200, step_ms: 50 });
    expect(sent?.arms?.map((arm) => arm.label)).toEqual(['h2', 'h3']);
    expect(sent?.arms?.[1]?.ca_bundle).toBe('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  });

  it('takes a request list as JSON and refuses one that is not a list before asking the server', async () => {
    const { user } = renderForm();
    await screen.findByRole('radio', { name: /MID image series/ });
    await user.selectOptions(screen.getByLabelText('Workload'), 'requests');
    const har = screen.getByRole('link', { name: 'build the list from a HAR recording' });
    expect(har).toHaveAttribute('href', '/comparisons/new/har');
    await user.click(screen.getByLabelText('Requests (JSON list)'));
    await user.paste('{"path": "/feed"}');
    await vi.waitFor(() => expect(screen.getByLabelText('Requests (JSON list)')).toHaveAttribute('aria-invalid', 'true'));
    await user.clear(screen.getByLabelText('Requests (JSON list)'));
    await user.paste('[{"path": "/feed"}]');
    await vi.waitFor(() => expect(mockBackend.validated.at(-1)?.workload).toEqual({ kind: 'requests', requests: [{ path: '/feed' }] }));
  });
});

describe('comparison builder: edit a copy', () => {
  it("starts from the previous comparison's submitted spec, merged with its preset", async () => {
    const { user, onCreated } = renderForm(comparisonDetailFixture.id);
    expect(await screen.findByText(/Editing a copy of “MID image series/)).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /MID image series/ })).toBeChecked();
    expect(screen.getByLabelText('Name (optional)')).toHaveValue(comparisonDetailFixture.name);
    expect(screen.getByLabelText('Blocks')).toHaveValue('6');
    expect(screen.getAllByTestId('arm-row')).toHaveLength(3);
    expect(screen.getByLabelText('Label of arm 3')).toHaveValue('h3');
    expect(screen.getByLabelText('Tags (optional)')).toHaveValue('branch=main');
    const profiles = screen.getByRole('group', { name: 'Network profiles' });
    expect(within(profiles).getByRole('checkbox', { name: /transatlantic/ })).toBeChecked();

    await user.clear(screen.getByLabelText('Blocks'));
    await user.type(screen.getByLabelText('Blocks'), '8');
    await user.click(screen.getByRole('button', { name: 'Create comparison' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(mockBackend.created[0]).toMatchObject({
      name: comparisonDetailFixture.name,
      preset: 'mid-image-series',
      blocks: 8,
      network_profiles: ['transatlantic', 'none'],
      tags: { branch: 'main' },
    });
    expect(mockBackend.created[0]?.arms?.map((arm) => arm.protocol)).toEqual(['h1', 'h2', 'h3']);
  });

  it('says when the comparison to copy cannot be loaded', async () => {
    renderForm('00000000-0000-4000-8000-000000000000');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the comparison to copy');
  });
});

describe('estimate text', () => {
  it('gives ranges when the comparison runs until decided', () => {
    expect(
      estimateText({ runs: 2, blocks_min: 12, blocks_max: 48, requests_min: 1200, requests_max: 4800, device_minutes_min: 2, device_minutes_max: 8, seconds_per_request: 0.1, pace_basis: 'same_spec', pace_comparisons: 1 }),
    ).toBe('2 runs · 12–48 blocks · 1,200–4,800 requests · ≈ 2.0–8.0 device-minutes');
  });
});
