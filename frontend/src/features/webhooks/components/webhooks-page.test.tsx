import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Webhook, WebhookDelivery } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { mockSettings } from '@/testing/mocks/settings-handlers';
import { renderWithProviders } from '@/testing/test-utils';
import { WebhooksPage } from './webhooks-page';

const hook: Webhook = {
  id: '80000000-0000-4000-8000-0000000000aa', url: 'https://ci.example.com/hooks/latencylab',
  events: ['comparison.finished'], active: true, created_at: '2026-11-01T09:00:00Z',
};
const failed: WebhookDelivery = {
  id: '90000000-0000-4000-8000-0000000000aa', event: 'comparison.finished',
  comparison: { id: '7d4f9a52-3c1e-4b8a-9d2f-5e6a7b8c9d01', name: 'h2 vs h3 on LTE' },
  status: 'failed', attempts: 5, last_status_code: 503, last_error: 'HTTP 503', next_attempt_at: null,
  created_at: '2026-11-19T10:00:00Z', delivered_at: null,
};
const pending: WebhookDelivery = {
  ...failed, id: '90000000-0000-4000-8000-0000000000bb', status: 'pending', attempts: 1,
  comparison: { id: '8e5a0b63-4d2f-4c9b-8e30-6f7b8c9d0e12', name: 'nightly' },
};

const renderPage = () => renderWithProviders(<WebhooksPage />, { path: '/webhooks', routePath: '/webhooks' });

describe('webhooks page', () => {
  afterEach(() => vi.restoreAllMocks());

  it('registers a webhook, shows the signing secret once, and lists it', async () => {
    const settings = mockSettings();
    server.use(...settings.handlers);
    const { user } = renderPage();
    expect(await screen.findByText(/No webhook yet/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Receiver URL'), 'https://hooks.example.com/ll');
    await user.click(screen.getByRole('checkbox', { name: /comparison.failed/ }));
    await user.click(screen.getByRole('button', { name: 'Register webhook' }));
    const secret = within(await screen.findByTestId('new-webhook-secret')).getByRole('textbox');
    expect(secret).toHaveValue('whsec_the-signing-secret-shown-once');
    expect(secret).toHaveFocus();
    expect(settings.state.webhookRequests).toEqual([{ url: 'https://hooks.example.com/ll', events: ['comparison.finished'] }]);
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/ll' });
    expect(within(card).getByTestId('webhook-state')).toHaveTextContent('Active');
  });

  it('shows the server’s URL message at the field', async () => {
    const settings = mockSettings();
    server.use(...settings.handlers);
    const { user } = renderPage();
    await user.type(await screen.findByLabelText('Receiver URL'), 'http://hooks.example.com/ll');
    await user.click(screen.getByRole('button', { name: 'Register webhook' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Receiver URL')).toHaveAccessibleDescription('Must be https:// (http:// only to localhost).'),
    );
    expect(settings.state.webhooks).toEqual([]);
  });

  it('turns a webhook off and on, and deletes it after confirmation', async () => {
    const settings = mockSettings({ webhooks: [hook], deliveries: { [hook.id]: [] } });
    server.use(...settings.handlers);
    const { user } = renderPage();
    const card = await screen.findByRole('article', { name: hook.url });
    await user.click(within(card).getByRole('button', { name: 'Turn off' }));
    await waitFor(() => expect(within(card).getByTestId('webhook-state')).toHaveTextContent('Off'));
    await user.click(within(card).getByRole('button', { name: 'Turn on' }));
    await waitFor(() => expect(within(card).getByTestId('webhook-state')).toHaveTextContent('Active'));
    expect(settings.state.updates).toEqual([
      { id: hook.id, body: { active: false } },
      { id: hook.id, body: { active: true } },
    ]);
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    await user.click(within(card).getByRole('button', { name: `Delete ${hook.url}` }));
    expect(await screen.findByText(/No webhook yet/)).toBeInTheDocument();
    expect(settings.state.deleted).toEqual([hook.id]);
  });

  it('changes the events of a registered webhook', async () => {
    const settings = mockSettings({ webhooks: [hook], deliveries: { [hook.id]: [] } });
    server.use(...settings.handlers);
    const { user } = renderPage();
    const card = await screen.findByRole('article', { name: hook.url });
    expect(card).toHaveTextContent('comparison.finished ·');
    await user.click(within(card).getByRole('button', { name: 'Edit events' }));
    const form = within(card).getByRole('form', { name: `Events of ${hook.url}` });
    expect(within(form).getByRole('checkbox', { name: /comparison.finished/ })).toBeChecked();
    expect(within(form).getByRole('checkbox', { name: /comparison.failed/ })).not.toBeChecked();
    await user.click(within(form).getByRole('checkbox', { name: /comparison.failed/ }));
    await user.click(within(form).getByRole('button', { name: 'Save events' }));
    await waitFor(() => expect(within(card).queryByRole('form')).not.toBeInTheDocument());
    expect(card).toHaveTextContent('comparison.finished, comparison.failed ·');
    expect(settings.state.updates).toEqual([{ id: hook.id, body: { events: ['comparison.finished', 'comparison.failed'] } }]);
  });

  it('shows the server’s message at the events when none is left, and keeps the webhook as it was', async () => {
    const settings = mockSettings({ webhooks: [hook], deliveries: { [hook.id]: [] } });
    server.use(...settings.handlers);
    const { user } = renderPage();
    const card = await screen.findByRole('article', { name: hook.url });
    await user.click(within(card).getByRole('button', { name: 'Edit events' }));
    const form = within(card).getByRole('form', { name: `Events of ${hook.url}` });
    await user.click(within(form).getByRole('checkbox', { name: /comparison.finished/ }));
    await user.click(within(form).getByRole('button', { name: 'Save events' }));
    const events = within(form).getByRole('group', { name: 'Events' });
    await waitFor(() => expect(events).toHaveAccessibleDescription('Ensure this field has at least 1 elements.'));
    expect(settings.state.webhooks[0]?.events).toEqual(['comparison.finished']);
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(within(card).queryByRole('form')).not.toBeInTheDocument();
  });

  it('shows deliveries with status badges and redelivers a failed one', async () => {
    const settings = mockSettings({ webhooks: [hook], deliveries: { [hook.id]: [failed, pending] } });
    server.use(...settings.handlers);
    const { user } = renderPage();
    const card = await screen.findByRole('article', { name: hook.url });
    const toggle = within(card).getByRole('button', { name: 'Deliveries' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const table = await within(card).findByRole('table', { name: `Deliveries to ${hook.url}` });
    const rows = within(table).getAllByTestId('delivery');
    expect(rows).toHaveLength(2);
    const [failedRow, pendingRow] = rows as [HTMLElement, HTMLElement];
    expect(failedRow).toHaveTextContent('Failed');
    expect(failedRow).toHaveTextContent('HTTP 503');
    expect(within(failedRow).getByRole('link', { name: 'h2 vs h3 on LTE' })).toHaveAttribute(
      'href', `/comparisons/${failed.comparison.id}`,
    );
    expect(pendingRow).toHaveTextContent('Pending');
    expect(within(pendingRow).getByRole('button', { name: 'Redeliver nightly' })).toBeDisabled();

    await user.click(within(failedRow).getByRole('button', { name: 'Redeliver h2 vs h3 on LTE' }));
    await waitFor(() => expect(within(table).getAllByTestId('delivery')[0]).toHaveTextContent('Delivered'));
    expect(within(table).getAllByTestId('delivery')[0]).toHaveTextContent('HTTP 200');
    expect(settings.state.redelivered).toEqual([failed.id]);
  });

  it('shows a load error', async () => {
    server.use(http.get('*/api/v1/webhooks', () => HttpResponse.json({ detail: 'Boom.' }, { status: 500 })));
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load webhooks: Boom.');
  });

  it('says when a webhook has no delivery yet', async () => {
    server.use(...mockSettings({ webhooks: [hook], deliveries: { [hook.id]: [] } }).handlers);
    const { user } = renderPage();
    const card = await screen.findByRole('article', { name: hook.url });
    await user.click(within(card).getByRole('button', { name: 'Deliveries' }));
    expect(await within(card).findByText(/No delivery yet/)).toBeInTheDocument();
  });
});
