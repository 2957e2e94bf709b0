import { useId, useState, type FormEvent } from 'react';
import { ACTIONS, DataTable } from '@/components/data-table';
import { QueryState } from '@/components/query-state';
import { RevokeButton } from '@/components/revoke-button';
import type { Secret } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { useCreateSecret, useDeleteSecret, useReplaceSecret, useSecrets } from '../api/secrets';

const NAME_PATTERN = '[A-Z][A-Z0-9_]{0,63}';
const MAX_VALUE_BYTES = 8192;

/** A value must fit a header: no line breaks, at most 8 KiB. Checked again by the server. */
export function valueProblem(value: string): string | null {
  if (value.length === 0) return 'Enter a value.';
  if (/[\r\n\0]/.test(value)) return 'A value goes into a header: no line breaks.';
  if (new TextEncoder().encode(value).length > MAX_VALUE_BYTES) return `At most ${MAX_VALUE_BYTES} bytes.`;
  return null;
}

/**
 * The organization's secrets (API keys, bearer tokens) that request headers reference as
 * {{secret.NAME}}. Everyone sees the names; owners and admins add, replace and delete.
 * A value is typed into a password field, sent once and never shown again.
 */
export function SecretsSection({ canManage }: { canManage: boolean }) {
  const secrets = useSecrets();
  const remove = useDeleteSecret();
  const [replacing, setReplacing] = useState<string | null>(null);
  return (
    <div className="stack">
      <p className="muted">
        Reference a secret in a request header of a spec as <code>{'{{secret.NAME}}'}</code>, for example{' '}
        <code>{'Authorization: "Bearer {{secret.API_TOKEN}}"'}</code>. Values are stored encrypted, never shown
        again, and go only to the host runner measuring a run that uses them.
      </p>
      {canManage ? (
        <AddSecretForm />
      ) : (
        <p className="muted">Only owners and admins of the organization add, replace and delete secrets.</p>
      )}
      <QueryState
        query={secrets}
        what="secrets"
        isEmpty={(data) => data.length === 0}
        empty={<p className="empty-state muted">No secret yet.</p>}>
        {(rows) => (
          <SecretList secrets={rows} canManage={canManage} replacing={replacing} onReplace={setReplacing} remove={remove} />
        )}
      </QueryState>
    </div>
  );
}

function AddSecretForm() {
  const create = useCreateSecret();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const nameId = useId();
  const valueId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = valueProblem(value);
    setProblem(invalid);
    if (invalid) return;
    create.mutate(
      { name, value },
      {
        onSuccess: () => {
          setName('');
          setValue('');
        },
      },
    );
  };
  return (
    <form className="enroll-form" onSubmit={submit} aria-label="New secret">
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          value={name}
          required
          pattern={NAME_PATTERN}
          maxLength={64}
          placeholder="API_TOKEN"
          title="A-Z, 0-9 and _, starting with a letter"
          autoComplete="off"
          onChange={(event) => setName(event.target.value.toUpperCase())}
        />
      </div>
      <div className="field">
        <label htmlFor={valueId}>Value</label>
        <input
          id={valueId}
          type="password"
          value={value}
          required
          autoComplete="new-password"
          onChange={(event) => setValue(event.target.value)}
        />
      </div>
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        {create.isPending ? 'Adding…' : 'Add secret'}
      </button>
      {(problem ?? create.isError) && (
        <p role="alert" className="alert alert-error">
          {problem ?? `Could not add the secret: ${create.error?.message ?? ''}`}
        </p>
      )}
    </form>
  );
}

type SecretListProps = {
  secrets: Secret[];
  canManage: boolean;
  replacing: string | null;
  onReplace: (name: string | null) => void;
  remove: ReturnType<typeof useDeleteSecret>;
};

function SecretList({ secrets, canManage, replacing, onReplace, remove }: SecretListProps) {
  return (
    <DataTable label="Secrets" columns={['Name', 'Reference', 'Created', 'Last changed', canManage && ACTIONS]}>
      <tbody>
        {secrets.map((secret) => (
          <tr key={secret.name}>
            <th scope="row">
              <code>{secret.name}</code>
            </th>
            <td>
              <code className="small">{`{{secret.${secret.name}}}`}</code>
            </td>
            <td className="nowrap">
              {formatDateTime(secret.created_at)}
              {secret.created_by && <div className="muted small">by {secret.created_by}</div>}
            </td>
            <td className="nowrap">
              {formatDateTime(secret.updated_at)}
              {secret.updated_by && <div className="muted small">by {secret.updated_by}</div>}
            </td>
            {canManage && (
              <td className="cell-action nowrap">
                {replacing === secret.name ? (
                  <ReplaceForm name={secret.name} onDone={() => onReplace(null)} />
                ) : (
                  <>
                    <button type="button" className="button" onClick={() => onReplace(secret.name)}>
                      Replace<span className="visually-hidden"> {secret.name}</span>
                    </button>{' '}
                    <RevokeButton
                      mutation={remove}
                      variables={secret.name}
                      name={secret.name}
                      verb="Delete"
                      confirm={`Delete the secret ${secret.name}? Queued runs that use it will fail.`}
                    />
                  </>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

function ReplaceForm({ name, onDone }: { name: string; onDone: () => void }) {
  const replace = useReplaceSecret();
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const valueId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = valueProblem(value);
    setProblem(invalid);
    if (!invalid) replace.mutate({ name, value }, { onSuccess: onDone });
  };
  return (
    <form className="secret-row secret-replace" onSubmit={submit} aria-label={`Replace ${name}`}>
      <label htmlFor={valueId} className="visually-hidden">
        New value of {name}
      </label>
      <input
        id={valueId}
        type="password"
        value={value}
        autoComplete="new-password"
        placeholder="New value"
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit" className="button button-primary" disabled={replace.isPending}>
        Save
      </button>
      <button type="button" className="button button-ghost" onClick={onDone}>
        Cancel
      </button>
      {(problem ?? replace.isError) && (
        <span role="alert" className="small">
          {problem ?? replace.error?.message}
        </span>
      )}
    </form>
  );
}
