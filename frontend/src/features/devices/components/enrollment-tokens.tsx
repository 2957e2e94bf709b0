import { useId, useState, type FormEvent } from 'react';
import { ACTIONS, DataTable } from '@/components/data-table';
import { QueryState } from '@/components/query-state';
import { RevokeButton } from '@/components/revoke-button';
import type { EnrollmentToken, EnrollmentTokenCreated, Pool } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { useCreateEnrollmentToken, useEnrollmentTokens, useRevokeEnrollmentToken } from '../api/enrollment-tokens';
import { ShownOnce } from '@/components/shown-once';

const MAX_DAYS = 90;

/** Enrollment tokens of the pools the caller manages (owners and admins), one pool at a time. */
export function EnrollmentTokens({ pools }: { pools: Pool[] }) {
  const managed = pools.filter((pool) => pool.can_manage);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const poolId = useId();
  if (managed.length === 0) {
    return (
      <p className="muted">
        Only owners and admins of the organization create enrollment tokens, which let a lab host enroll a runner
        into one of the organization's pools.
      </p>
    );
  }
  const pool = managed.find((candidate) => candidate.slug === selected) ?? managed[0]!;
  return (
    <div className="stack">
      {managed.length > 1 && (
        <div className="field field-inline">
          <label htmlFor={poolId}>Pool</label>
          <select id={poolId} value={pool.slug} onChange={(event) => setSelected(event.target.value)}>
            {managed.map((candidate) => (
              <option key={candidate.slug} value={candidate.slug}>
                {candidate.name} ({candidate.slug})
              </option>
            ))}
          </select>
        </div>
      )}
      <PoolTokens key={pool.slug} pool={pool.slug} />
    </div>
  );
}

function PoolTokens({ pool }: { pool: string }) {
  const tokens = useEnrollmentTokens(pool, true);
  const create = useCreateEnrollmentToken(pool);
  const revoke = useRevokeEnrollmentToken(pool);
  const [name, setName] = useState('');
  const [days, setDays] = useState('7');
  const [created, setCreated] = useState<EnrollmentTokenCreated | null>(null);
  const nameId = useId();
  const daysId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), expires_in_days: Number(days) },
      {
        onSuccess: (token) => {
          setCreated(token);
          setName('');
        },
      },
    );
  };

  return (
    <div className="stack">
      <form className="enroll-form" onSubmit={submit} aria-label={`New enrollment token for ${pool}`}>
        <div className="field">
          <label htmlFor={nameId}>Label (optional)</label>
          <input id={nameId} value={name} maxLength={100} onChange={(event) => setName(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={daysId}>Expires after (days)</label>
          <input
            id={daysId}
            type="number"
            min={1}
            max={MAX_DAYS}
            value={days}
            onChange={(event) => setDays(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create enrollment token'}
        </button>
      </form>
      {create.isError && (
        <p role="alert" className="alert alert-error">
          Could not create the token: {create.error.message}
        </p>
      )}
      {created && <NewSecret token={created} pool={pool} onDismiss={() => setCreated(null)} />}
      <QueryState
        query={tokens}
        what="enrollment tokens"
        isEmpty={(data) => data.length === 0}
        empty={<p className="empty-state muted">No enrollment token for {pool} yet.</p>}>
        {(rows) => <TokenList pool={pool} tokens={rows} revoke={revoke} />}
      </QueryState>
    </div>
  );
}

function NewSecret({ token, pool, onDismiss }: { token: EnrollmentTokenCreated; pool: string; onDismiss: () => void }) {
  return (
    <ShownOnce
      value={token.token}
      onDismiss={onDismiss}
      ariaLabel="New enrollment token"
      testId="new-enrollment-token"
      footer={
        <code className="small">
          latencylab-runner register --server {window.location.origin} --token {'<token>'} --name {'<runner name>'}
        </code>
      }
    >
      <strong>Copy this token now: it is not shown again.</strong> It enrolls runners into <code>{pool}</code> until{' '}
      {formatDateTime(token.expires_at)}.
    </ShownOnce>
  );
}

type TokenListProps = {
  pool: string;
  tokens: EnrollmentToken[];
  revoke: ReturnType<typeof useRevokeEnrollmentToken>;
};

function TokenList({ pool, tokens, revoke }: TokenListProps) {
  return (
    <DataTable label={`Enrollment tokens of ${pool}`} columns={['Token', 'Status', 'Created', 'Expires', 'Runners enrolled', 'Last used', ACTIONS]}>
      <tbody>
        {tokens.map((token) => (
          <tr key={token.id}>
            <th scope="row">
              <code>{token.prefix}…</code>
              {token.name && <div className="muted small">{token.name}</div>}
            </th>
            <td>{token.status}</td>
            <td className="nowrap">
              {formatDateTime(token.created_at)}
              {token.created_by && <div className="muted small">by {token.created_by}</div>}
            </td>
            <td className="nowrap">{formatDateTime(token.expires_at)}</td>
            <td>{token.runners_enrolled}</td>
            <td className="nowrap">{formatDateTime(token.last_used_at)}</td>
            <td className="cell-action">
              {token.status === 'active' && (
                <RevokeButton
                  mutation={revoke}
                  variables={token.id}
                  name={token.prefix}
                  confirm={`Revoke the enrollment token ${token.prefix}…? No runner can enroll with it from then on; runners it enrolled keep working.`}
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
