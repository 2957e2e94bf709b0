import { useId, useState, type FormEvent } from 'react';
import { ACTIONS, DataTable } from '@/components/data-table';
import { ErrorSummary, FieldMessages, fieldMessages } from '@/components/field-messages';
import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
import { RevokeButton } from '@/components/revoke-button';
import { Spinner } from '@/components/spinner';
import { ApiError } from '@/lib/api-client';
import { API_TOKEN_SCOPES, type ApiToken, type ApiTokenCreated, type ApiTokenScope, type Me } from '@/lib/api-types';
import { flattenFieldErrors, type FieldError } from '@/lib/field-errors';
import { formatDateTime } from '@/utils/format';
import { useApiTokens, useCreateApiToken, useRevokeApiToken } from '../api/api-tokens';
import { ShownOnce } from '@/components/shown-once';

const MANAGER_ROLES = new Set(['owner', 'admin']);

const SCOPE_HELP: Record<ApiTokenScope, string> = {
  read: 'read anything of the organization',
  write: 'create and change comparisons, profiles, webhooks',
  ci: 'what the CLI and the GitHub Action need: submit, wait, gate',
};

// Choices the server accepts (1–365 days, or no expiry); it checks them again.
const EXPIRY_CHOICES: { label: string; days: number | null }[] = [
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
  { label: 'Never (revoke it when done)', days: null },
];

/** API tokens for CI and scripts: create (the secret shown once), list, revoke. Owners and admins only. */
export function ApiTokensPage({ me }: { me: Me | null | undefined }) {
  const canManage = MANAGER_ROLES.has(me?.role ?? '');
  return (
    <div className="stack">
      <PageHeader title="API tokens">
        For CI and scripts: send <code>Authorization: Bearer &lt;token&gt;</code>. A token acts for the organization
        with the scopes it was given, until it expires or is revoked.
      </PageHeader>
      {me === undefined ? (
        <Spinner label="Loading" />
      ) : canManage ? (
        <ManageTokens />
      ) : (
        <p className="alert alert-info">Only owners and admins of the organization create, see and revoke API tokens.</p>
      )}
    </div>
  );
}

function ManageTokens() {
  const tokens = useApiTokens(true);
  const revoke = useRevokeApiToken();
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);
  return (
    <>
      <section aria-labelledby="new-token-heading" className="card pad stack-tight">
        <h2 id="new-token-heading">New token</h2>
        <CreateTokenForm onCreated={setCreated} />
        {created && <NewTokenSecret token={created} onDismiss={() => setCreated(null)} />}
      </section>
      <section aria-labelledby="tokens-heading" className="stack-tight">
        <h2 id="tokens-heading">Tokens</h2>
        <QueryState
          query={tokens}
          what="API tokens"
          isEmpty={(data) => data.length === 0}
          empty={<p className="empty-state muted">No API token yet. Create one above for your CI.</p>}>
          {(rows) => <TokenTable tokens={rows} revoke={revoke} />}
        </QueryState>
      </section>
    </>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: ApiTokenCreated) => void }) {
  const create = useCreateApiToken();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiTokenScope[]>(['read', 'ci']);
  const [expiry, setExpiry] = useState('90');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const nameId = useId();
  const expiryId = useId();
  const ids = { name: useId(), scopes: useId(), expiry: useId() };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors([]);
    create.mutate(
      { name: name.trim(), scopes, expires_in_days: expiry === 'never' ? null : Number(expiry) },
      {
        onSuccess: (token) => {
          setName('');
          onCreated(token);
        },
        onError: (error) =>
          setErrors(
            error instanceof ApiError && error.status === 400
              ? flattenFieldErrors(error.body)
              : [{ path: '', message: error.message }],
          ),
      },
    );
  };
  const toggle = (scope: ApiTokenScope, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));
  const nameErrors = fieldMessages(errors, 'name');
  const scopeErrors = fieldMessages(errors, 'scopes');
  const expiryErrors = fieldMessages(errors, 'expires_in_days');

  return (
    <form className="form stack-tight" onSubmit={submit} aria-label="New API token" noValidate>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          value={name}
          maxLength={100}
          placeholder="GitHub Actions: main repo"
          autoComplete="off"
          aria-invalid={nameErrors.length > 0}
          aria-describedby={nameErrors.length ? ids.name : undefined}
          onChange={(event) => setName(event.target.value)}
        />
        <FieldMessages id={ids.name} messages={nameErrors} />
      </div>
      <fieldset className="fieldset" aria-describedby={scopeErrors.length ? ids.scopes : undefined}>
        <legend>Scopes</legend>
        {API_TOKEN_SCOPES.map((scope) => (
          <label key={scope} className="checkbox">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(event) => toggle(scope, event.target.checked)}
            />{' '}
            <code>{scope}</code> <span className="muted small">— {SCOPE_HELP[scope]}</span>
          </label>
        ))}
        <FieldMessages id={ids.scopes} messages={scopeErrors} />
      </fieldset>
      <div className="field">
        <label htmlFor={expiryId}>Expires after</label>
        <select
          id={expiryId}
          value={expiry}
          aria-describedby={expiryErrors.length ? ids.expiry : undefined}
          onChange={(event) => setExpiry(event.target.value)}
        >
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.label} value={choice.days === null ? 'never' : String(choice.days)}>
              {choice.label}
            </option>
          ))}
        </select>
        <FieldMessages id={ids.expiry} messages={expiryErrors} />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
      <ErrorSummary errors={errors} title="The token was not created:" />
    </form>
  );
}

function NewTokenSecret({ token, onDismiss }: { token: ApiTokenCreated; onDismiss: () => void }) {
  return (
    <ShownOnce value={token.token} onDismiss={onDismiss} ariaLabel="New token secret" testId="new-api-token">
      <strong>Copy this token now: it will not be shown again.</strong> “{token.name}” has the scopes{' '}
      {token.scopes.join(', ')}
      {token.expires_at ? <> and expires {formatDateTime(token.expires_at)}</> : <> and does not expire</>}.
    </ShownOnce>
  );
}

const STATUS_LABELS: Record<ApiToken['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

function TokenTable({ tokens, revoke }: { tokens: ApiToken[]; revoke: ReturnType<typeof useRevokeApiToken> }) {
  return (
    <DataTable label="API tokens" columns={['Name', 'Scopes', 'Status', 'Created', 'Last used', 'Expires', ACTIONS]}>
      <tbody>
        {tokens.map((token) => (
          <tr key={token.id} data-testid={`api-token-${token.prefix}`}>
            <th scope="row">
              {token.name}
              <div className="muted small">
                <code>{token.prefix}…</code>
              </div>
            </th>
            <td>{token.scopes.join(', ')}</td>
            <td>
              <span className={`badge badge-token-${token.status}`} data-status={token.status}>
                {STATUS_LABELS[token.status]}
              </span>
              {token.revoked_at && <div className="muted small">{formatDateTime(token.revoked_at)}</div>}
            </td>
            <td className="nowrap">
              {formatDateTime(token.created_at)}
              {token.created_by && <div className="muted small">by {token.created_by}</div>}
            </td>
            <td className="nowrap">{token.last_used_at ? formatDateTime(token.last_used_at) : 'never'}</td>
            <td className="nowrap">{token.expires_at ? formatDateTime(token.expires_at) : 'never'}</td>
            <td className="cell-action">
              {token.status === 'active' && (
                <RevokeButton
                  mutation={revoke}
                  variables={token.id}
                  name={token.name}
                  confirm={`Revoke the token "${token.name}" (${token.prefix}…)? Anything using it is refused from then on.`}
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
