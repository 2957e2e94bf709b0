import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import { AuditLogPage } from './audit-log-page';

function event(i: number, overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: `a0000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    created_at: `2026-11-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`,
    action: 'api_token.revoked',
    actor: { id: 7, token_id: null, label: 'alice' },
    target: { type: 'api_token', id: `t-${i}`, label: `token ${i}` },
    details: {},
    ...overrides,
  };
}

/** A mocked log that filters by action and actor and pages by 25, recording each query. */
function serveLog(events: AuditEvent[]) {
  const queries: Record<string, string>[] = [];
  server.use(
    http.get('*/api/v1/audit-events', ({ request }) => {
      const query = Object.fromEntries(new URL(request.url).searchParams);
      queries.push(query);
      if (query['since'] && query['until'] && query['until'] <= query['since']) {
        return HttpResponse.json({ until: ['Must be later than since.'] }, { status: 400 });
      }
      const matching = events.filter(
        (e) => (!query['action'] || e.action === query['action']) && (!query['actor'] || String(e.actor.id) === query['actor']),
      );
      const page = Number(query['page'] ?? 1);
      const url = (p: number) => `http://localhost/api/v1/audit-events?page=${p}`;
      return HttpResponse.json({
        count: matching.length,
        next: page * 25 < matching.length ? url(page + 1) : null,
        previous: page > 1 ? url(page - 1) : null,
        results: matching.slice((page - 1) * 25, page * 25),
      });
    }),
  );
  return queries;
}

describe('audit log page', () => {
  it('lists who did what, with readable details', async () => {
    serveLog([
      event(1, {
        action: 'member.role_changed',
        target: { type: 'member', id: 'm-1', label: 'bob' },
        details: { user_id: 3, role: 'admin', old_role: 'member' },
      }),
      event(2, {
        action: 'webhook.updated',
        actor: { id: null, token_id: 'tok', label: "API token 'ci' (llt_ab12…)" },
        target: { type: 'webhook', id: 'w-1', label: 'https://ci.example.com/hooks' },
        details: { changes: { active: false } },
      }),
      event(3, { action: 'member.removed', actor: { id: null, token_id: null, label: '' } }),
    ]);
    renderWithProviders(<AuditLogPage />);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const roleChange = within(table).getByRole('row', { name: /Role changed/ });
    expect(within(roleChange).getAllByRole('cell').map((td) => td.textContent)).toEqual([
      expect.stringContaining('2026'),
      'alice',
      'bob',
      'role: admin; old role: member',
    ]);
    const webhook = within(table).getByRole('row', { name: /Webhook changed/ });
    expect(webhook).toHaveTextContent("API token 'ci' (llt_ab12…)");
    expect(webhook).toHaveTextContent('changes: active false');
    expect(within(table).getByRole('row', { name: /Member removed/ })).toHaveTextContent('system');
  });

  it('filters by action and days, and by a person clicked in the table', async () => {
    const queries = serveLog([
      event(1),
      event(2, { action: 'share_link.created', actor: { id: 9, token_id: null, label: 'olivia' } }),
    ]);
    const { user } = renderWithProviders(<AuditLogPage />);
    await screen.findByRole('table', { name: 'Audit log' });
    await user.selectOptions(screen.getByLabelText('Action'), 'Share link created');
    await user.type(screen.getByLabelText('From (UTC day)'), '2026-11-01');
    await user.type(screen.getByLabelText('To (UTC day, included)'), '2026-11-30');
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByRole('row', { name: /Share link created/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /API token revoked/ })).not.toBeInTheDocument();
    expect(queries.at(-1)).toEqual({
      action: 'share_link.created', since: '2026-11-01T00:00:00.000Z', until: '2026-12-01T00:00:00.000Z', page: '1',
    });

    await user.click(screen.getByRole('button', { name: 'olivia' }));
    expect(await screen.findByText('Only')).toHaveTextContent('Only olivia');
    expect(queries.at(-1)).toMatchObject({ actor: '9', action: 'share_link.created' });
    await user.click(screen.getByRole('button', { name: 'Everyone' }));
    expect(screen.queryByText('Only')).not.toBeInTheDocument();
    expect(queries.every((query) => !('actor' in query) || query['actor'] === '9')).toBe(true);
  });

  it('shows a refused filter at its field', async () => {
    serveLog([event(1)]);
    const { user } = renderWithProviders(<AuditLogPage />);
    await screen.findByRole('table', { name: 'Audit log' });
    await user.type(screen.getByLabelText('From (UTC day)'), '2026-11-10');
    await user.type(screen.getByLabelText('To (UTC day, included)'), '2026-11-01');
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('Must be later than since.')).toBeInTheDocument();
  });

  it('pages through a long log', async () => {
    serveLog(Array.from({ length: 30 }, (_, i) => event(i)));
    const { user } = renderWithProviders(<AuditLogPage />);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(table).getAllByRole('row')).toHaveLength(26);
    expect(screen.getByText('Page 1 of 2')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2 of 2')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Audit log' })).getAllByRole('row')).toHaveLength(6);
  });

  it('tells members that only owners and admins see it', async () => {
    server.use(http.get('*/api/v1/audit-events', () => HttpResponse.json({ detail: 'no' }, { status: 403 })));
    renderWithProviders(<AuditLogPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Only owners and admins');
  });
});
