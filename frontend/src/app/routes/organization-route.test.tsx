import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRoutes } from '@/app/router';
import type { Secret } from '@/lib/api-types';
import { meFixture } from '@/testing/fixtures';
import { server } from '@/testing/mocks/server';
import { renderRoutes } from '@/testing/test-utils';
import { valueProblem } from '@/features/organization/components/secrets-section';

const api = (path: string) => `*/api/v1${path}`;

function secretsBackend(initial: string[]) {
  const names = new Set(initial);
  const sent: { method: string; body: unknown }[] = [];
  const row = (name: string): Secret => ({
    name,
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-21T10:00:00Z',
    created_by: 'ada',
    updated_by: 'ada',
  });
  return {
    sent,
    names,
    handlers: [
      http.get(api('/secrets'), () => HttpResponse.json([...names].sort().map(row))),
      http.post(api('/secrets'), async ({ request }) => {
        const body = (await request.json()) as { name: string; value: string };
        sent.push({ method: 'POST', body });
        names.add(body.name);
        return HttpResponse.json(row(body.name), { status: 201 });
      }),
      http.put(api('/secrets/:name'), async ({ request, params }) => {
        sent.push({ method: 'PUT', body: { name: params.name, ...((await request.json()) as object) } });
        return HttpResponse.json(row(String(params.name)));
      }),
      http.delete(api('/secrets/:name'), ({ params }) => {
        sent.push({ method: 'DELETE', body: params.name });
        names.delete(String(params.name));
        return new HttpResponse(null, { status: 204 });
      }),
    ],
  };
}

describe('organization settings: secrets', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lists names, adds, replaces and deletes without ever showing a value', async () => {
    const backend = secretsBackend(['API_TOKEN']);
    server.use(...backend.handlers);
    const { user } = renderRoutes(makeRoutes, '/comparisons');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('link', { name: 'Settings' }));
    const settings = await screen.findByRole('navigation', { name: 'Settings' });
    expect(within(settings).getByRole('link', { name: 'Organization' })).toHaveAttribute('aria-current', 'page');
    expect(await screen.findByRole('heading', { level: 2, name: 'Secrets' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Secrets' });
    expect(within(table).getByText('{{secret.API_TOKEN}}')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Name'), 'tenant_id');
    await user.type(screen.getByLabelText('Value'), 's3cr3t-value');
    await user.click(screen.getByRole('button', { name: 'Add secret' }));
    expect(await within(table).findByText('{{secret.TENANT_ID}}')).toBeInTheDocument();
    expect(backend.sent[0]).toEqual({ method: 'POST', body: { name: 'TENANT_ID', value: 's3cr3t-value' } });
    expect(screen.getByLabelText('Value')).toHaveValue('');
    expect(document.body).not.toHaveTextContent('s3cr3t-value');

    await user.click(screen.getByRole('button', { name: 'Replace API_TOKEN' }));
    await user.type(screen.getByLabelText('New value of API_TOKEN'), 'rotated');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByLabelText('New value of API_TOKEN')).not.toBeInTheDocument());
    expect(backend.sent[1]).toEqual({ method: 'PUT', body: { name: 'API_TOKEN', value: 'rotated' } });

    vi.spyOn(window, 'confirm').mockReturnValue(true);
    await user.click(screen.getByRole('button', { name: 'Delete API_TOKEN' }));
    await waitFor(() => expect(within(table).queryByText('{{secret.API_TOKEN}}')).not.toBeInTheDocument());
    expect(backend.sent[2]).toEqual({ method: 'DELETE', body: 'API_TOKEN' });
  });

  it('shows members the names only', async () => {
    server.use(
      ...secretsBackend(['API_TOKEN']).handlers,
      http.get(api('/auth/me'), () => HttpResponse.json({ ...meFixture, role: 'member' })),
    );
    renderRoutes(makeRoutes, '/organization');
    expect(await screen.findByText('{{secret.API_TOKEN}}')).toBeInTheDocument();
    expect(screen.getByText(/Only owners and admins/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add secret' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('refuses values that cannot go into a header', () => {
    expect(valueProblem('')).toMatch(/Enter/);
    expect(valueProblem('a\nb')).toMatch(/line breaks/);
    expect(valueProblem('é'.repeat(4097))).toMatch(/8192/);
    expect(valueProblem('Bearer x')).toBeNull();
  });
});
