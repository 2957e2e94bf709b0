import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { ACTIONS, DataTable } from '@/components/data-table';
import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
import { RevokeButton } from '@/components/revoke-button';
import { Spinner } from '@/components/spinner';
import { FormMessages, TextField } from '@/components/text-field';
import { fieldErrorsOf } from '@/lib/api-client';
import { ROLES, type Invitation, type Me, type Member, type Role } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { formatDateTime } from '@/utils/format';
import {
  useChangeRole,
  useInvitations,
  useInvite,
  useLeave,
  useMembers,
  useRemoveMember,
  useResendInvitation,
  useRevokeInvitation,
} from '../api/members';

export const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, and manages members and usage',
  admin: 'manages API tokens, pools, webhooks, enrollment, network profiles and secrets',
  member: 'runs comparisons and shares them',
  viewer: 'reads everything, changes nothing',
};
// Admins invite members and viewers; owners anyone (the server enforces it).
const INVITABLE: Record<string, readonly Role[]> = { owner: ROLES, admin: ['member', 'viewer'] };

/** Settings → Members: who belongs to the organization with which role, invitations, leaving. */
export function MembersPage({ me }: { me: Me | null | undefined }) {
  const role = me?.role ?? null;
  const canInvite = role === 'owner' || role === 'admin';
  return (
    <div className="stack">
      <PageHeader title="Members">
        Viewers read; members run comparisons; admins manage tokens, pools, webhooks and enrollment; owners manage
        members and usage.
      </PageHeader>
      {me === undefined || me === null ? (
        <Spinner label="Loading" />
      ) : (
        <>
          {canInvite && <InviteSection inviterRole={me.role ?? 'admin'} />}
          <MembersSection isOwner={role === 'owner'} />
          {canInvite && <InvitationsSection />}
          <LeaveSection me={me} />
        </>
      )}
    </div>
  );
}

function InviteSection({ inviterRole }: { inviterRole: string }) {
  const invite = useInvite();
  const roles = INVITABLE[inviterRole] ?? [];
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [sentTo, setSentTo] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors([]);
    setSentTo(null);
    invite.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (invitation) => {
          setSentTo(invitation.email);
          setEmail('');
        },
        onError: (error) => setErrors(fieldErrorsOf(error)),
      },
    );
  }

  return (
    <section aria-labelledby="invite-heading" className="card pad stack-tight">
      <h2 id="invite-heading">Invite someone</h2>
      <form className="form stack-tight" onSubmit={submit} aria-label="Invite a member" noValidate>
        <TextField label="Email" name="email" type="email" value={email} onChange={setEmail} errors={errors}
          autoComplete="off" required />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {roles.map((choice) => (
              <option key={choice} value={choice}>
                {choice} — {ROLE_HELP[choice]}
              </option>
            ))}
          </select>
        </div>
        <FormMessages errors={errors} fields={['email']} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={invite.isPending}>
            {invite.isPending ? 'Sending…' : 'Send invitation'}
          </button>
        </div>
        {sentTo && (
          <p role="status" className="alert alert-info">
            Invitation emailed to {sentTo}. The link works once, for 7 days.
          </p>
        )}
      </form>
    </section>
  );
}

function MembersSection({ isOwner }: { isOwner: boolean }) {
  const members = useMembers();
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  return (
    <section aria-labelledby="members-heading" className="stack-tight">
      <h2 id="members-heading">People</h2>
      <QueryState query={members} what="the members">
        {(rows) => (
          <DataTable label="Members" columns={['Member', 'Role', 'Joined', isOwner && ACTIONS]}>
            <tbody>
              {rows.map((member) => (
                <MemberRow key={member.id} member={member} isOwner={isOwner} remove={remove}
                  onRole={(role) => changeRole.mutate({ id: member.id, role })} />
              ))}
            </tbody>
          </DataTable>
        )}
      </QueryState>
      {changeRole.error && (
        <p role="alert" className="alert alert-error">
          {changeRole.error.message}
        </p>
      )}
    </section>
  );
}

function MemberRow({ member, isOwner, onRole, remove }: {
  member: Member;
  isOwner: boolean;
  onRole: (role: Role) => void;
  remove: ReturnType<typeof useRemoveMember>;
}) {
  return (
    <tr data-testid={`member-${member.username}`}>
      <th scope="row">
        {member.username}
        {member.is_you && <span className="muted"> (you)</span>}
        <div className="muted small">{member.email}</div>
      </th>
      <td>
        {isOwner ? (
          <select aria-label={`Role of ${member.username}`} value={member.role}
            onChange={(event) => onRole(event.target.value as Role)}>
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        ) : (
          <span className={`badge badge-role-${member.role}`}>{member.role}</span>
        )}
      </td>
      <td className="nowrap">{formatDateTime(member.joined_at)}</td>
      {isOwner && (
        <td className="cell-action">
          {!member.is_you && (
            <RevokeButton mutation={remove} variables={member.id} name={member.username} verb="Remove"
              confirm={`Remove ${member.username} from the organization? Their API tokens stop working.`} />
          )}
        </td>
      )}
    </tr>
  );
}

function InvitationsSection() {
  const invitations = useInvitations(true);
  const resend = useResendInvitation();
  const revoke = useRevokeInvitation();
  return (
    <section aria-labelledby="invitations-heading" className="stack-tight">
      <h2 id="invitations-heading">Pending invitations</h2>
      <QueryState
        query={invitations}
        what="the invitations"
        isEmpty={(data) => data.length === 0}
        empty={<p className="empty-state muted">No pending invitation.</p>}>
        {(rows) => (
          <DataTable label="Pending invitations" columns={['Email', 'Role', 'Expires', ACTIONS]}>
            <tbody>
              {rows.map((invitation) => (
                <InvitationRow key={invitation.id} invitation={invitation} revoke={revoke}
                  onResend={() => resend.mutate(invitation.id)} />
              ))}
            </tbody>
          </DataTable>
        )}
      </QueryState>
      {resend.error && (
        <p role="alert" className="alert alert-error">
          {resend.error.message}
        </p>
      )}
    </section>
  );
}

function InvitationRow({ invitation, onResend, revoke }: {
  invitation: Invitation;
  onResend: () => void;
  revoke: ReturnType<typeof useRevokeInvitation>;
}) {
  return (
    <tr data-testid={`invitation-${invitation.email}`}>
      <th scope="row">
        {invitation.email}
        {invitation.invited_by && <div className="muted small">by {invitation.invited_by}</div>}
      </th>
      <td>{invitation.role}</td>
      <td className="nowrap">
        {formatDateTime(invitation.expires_at)}
        {invitation.status === 'expired' && <div className="muted small">expired</div>}
      </td>
      <td className="cell-action nowrap">
        <button type="button" className="button button-ghost" onClick={onResend}>
          Resend<span className="visually-hidden"> to {invitation.email}</span>
        </button>{' '}
        <RevokeButton mutation={revoke} variables={invitation.id} name={`the invitation of ${invitation.email}`} />
      </td>
    </tr>
  );
}

function LeaveSection({ me }: { me: Me }) {
  const leave = useLeave();
  const navigate = useNavigate();
  const confirmAndLeave = () => {
    if (window.confirm(`Leave ${me.organization.name}? You will need a new invitation to come back.`)) {
      leave.mutate(undefined, { onSuccess: () => void navigate('/') });
    }
  };
  return (
    <section aria-labelledby="leave-heading" className="stack-tight">
      <h2 id="leave-heading">Leave</h2>
      <div>
        <button type="button" className="button button-danger" onClick={confirmAndLeave} disabled={leave.isPending}>
          Leave {me.organization.name}
        </button>
      </div>
      {leave.isError && (
        <p role="alert" className="alert alert-error">
          {leave.error.message}
        </p>
      )}
    </section>
  );
}
