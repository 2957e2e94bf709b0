import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Invitation, InvitationRequest, Me, Member } from '@/lib/api-types';
import { meFixture } from '@/testing/fixtures';
import { server } from '@/testing/mocks/server';
import { fill, renderWithProviders } from '@/testing/test-utils';
import { MembersPage } from './members-page';

const api = (path: string) => `*/api/v1${path}`;
const ada: Member = { id: 'a0000000-0000-4000-8000-000000000001', username: 'ada', email: 'ada@example.com',
  role: 'owner', joined_at: '2026-11-01T09:00:00Z', is_you: true };
const bob: Member = { id: 'a0000000-0000-4000-8000-000000000002', username: 'bob', email: 'bob@example.com',
  role: 'member', joined_at: '2026-11-02T09:00:00Z', is_you: false };

/** A small members backend: what was asked of it, and what it answers. */
function membersBackend() {
  const state = { members: [ada, bob], invitations: [] as Invitation[], invited: [] as InvitationRequest[],
    roles: [] as unknown[], revoked: [] as string[] };
  server.use(
    http.get(api('/members'), () => HttpResponse.json(state.members)),
    http.patch(api('/members/:id'), async ({ params, request }) => {
      const body = (await request.json()) as { role: Member['role'] };
      state.roles.push({ id: params.id, ...body });
      state.members = state.members.map((m) => (m.id === params.id ? { ...m, role: body.role } : m));
      return HttpResponse.json(state.members.find((m) => m.id === params.id));
    }),
    http.get(api('/invitations'), () => HttpResponse.json(state.invitations)),
    http.post(api('/invitations'), async ({ request }) => {
      const body = (await request.json()) as InvitationRequest;
      if (!body.email.includes('@')) return HttpResponse.json({ email: ['Enter a valid email address.'] }, { status: 400 });
      state.invited.push(body);
      const invitation: Invitation = { id: `b000000${state.invited.length}-0000-4000-8000-000000000000`, email: body.email,
        role: body.role ?? 'member', invited_by: 'ada', created_at: '2026-11-20T09:00:00Z',
        expires_at: '2026-11-27T09:00:00Z', accepted_at: null, revoked_at: null, status: 'pending' };
      state.invitations = [invitation, ...state.invitations];
      return HttpResponse.json(invitation, { status: 201 });
    }),
    http.post(api('/invitations/:id/revoke'), ({ params }) => {
      state.revoked.push(String(params.id));
      state.invitations = state.invitations.filter((i) => i.id !== params.id);
      return HttpResponse.json({});
    }),
  );
  return state;
}

describe('Members page', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lets an owner invite, see the pending invitation and revoke it', async () => {
    const state = membersBackend();
    const { user } = renderWithProviders(<MembersPage me={meFixture} />);
    const people = await screen.findByRole('table', { name: 'Members' });
    expect(within(people).getByRole('rowheader', { name: /ada \(you\)/ })).toBeInTheDocument();

    await fill(user, screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');

    await fill(user, screen.getByLabelText('Email'), 'vic@example.com');
    await user.selectOptions(screen.getByLabelText('Role'), 'viewer');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Invitation emailed to vic@example.com');
    expect(state.invited).toEqual([{ email: 'vic@example.com', role: 'viewer' }]);
    const pending = await screen.findByRole('table', { name: 'Pending invitations' });
    expect(within(pending).getByRole('rowheader', { name: /vic@example.com/ })).toBeInTheDocument();

    await user.click(within(pending).getByRole('button', { name: 'Revoke the invitation of vic@example.com' }));
    expect(await screen.findByText('No pending invitation.')).toBeInTheDocument();
    expect(state.revoked).toHaveLength(1);
    // A cap for a slow shared machine, not a timing check: the steps above are many round trips.
  }, 20_000);

  it("lets an owner change a member's role", async () => {
    const state = membersBackend();
    const { user } = renderWithProviders(<MembersPage me={meFixture} />);
    await user.selectOptions(await screen.findByLabelText('Role of bob'), 'admin');
    await vi.waitFor(() => expect(state.roles).toEqual([{ id: bob.id, role: 'admin' }]));
  });

  it('offers admins only the member and viewer roles to invite, and no role changes', async () => {
    membersBackend();
    const admin: Me = { ...meFixture, role: 'admin' };
    renderWithProviders(<MembersPage me={admin} />);
    await screen.findByRole('table', { name: 'Members' });
    const options = within(screen.getByLabelText('Role')).getAllByRole('option').map((o) => o.getAttribute('value'));
    expect(options).toEqual(['member', 'viewer']);
    expect(screen.queryByLabelText('Role of bob')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Remove/ })).not.toBeInTheDocument();
  });

  it('shows a viewer the members, nothing to manage, and the way out', async () => {
    membersBackend();
    renderWithProviders(<MembersPage me={{ ...meFixture, role: 'viewer' }} />);
    const people = await screen.findByRole('table', { name: 'Members' });
    expect(within(people).getByText('member')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Invite a member' })).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Pending invitations' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Leave Acme Mobile' })).toBeInTheDocument();
  });

  it("shows the server's refusal to demote the last owner", async () => {
    membersBackend();
    server.use(http.patch(api('/members/:id'), () =>
      HttpResponse.json({ detail: 'The last owner cannot be demoted; make another member an owner first.' },
        { status: 409 })));
    const { user } = renderWithProviders(<MembersPage me={meFixture} />);
    await user.selectOptions(await screen.findByLabelText('Role of ada'), 'viewer');
    expect(await screen.findByRole('alert')).toHaveTextContent('The last owner cannot be demoted');
  });
});
