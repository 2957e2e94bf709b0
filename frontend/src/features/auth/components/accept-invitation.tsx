import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Spinner } from '@/components/spinner';
import { FormMessages, TextField } from '@/components/text-field';
import { fieldErrorsOf } from '@/lib/api-client';
import type { Me } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { formatDateTime } from '@/utils/format';
import { useAcceptInvitation, useInvitation } from '../api/accounts';
import { useUser } from '../api/get-me';
import { PASSWORD_HINT } from './signup-form';

/** What the invitation offers; a signed-in user joins with one click, anyone else picks a username and password. */
export function AcceptInvitation({ token, onAccepted }: { token: string; onAccepted: (me: Me) => void }) {
  const invitation = useInvitation(token);
  const user = useUser();
  const accept = useAcceptInvitation();
  const [form, setForm] = useState({ username: '', password: '' });
  const [errors, setErrors] = useState<FieldError[]>([]);

  if (invitation.isPending || user.isPending) return <Spinner label="Opening the invitation" />;
  if (invitation.isError) {
    return (
      <p role="alert" className="alert alert-error">
        {invitation.error.message} <Link to="/login">Sign in</Link>
      </p>
    );
  }
  const offer = invitation.data;

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors([]);
    accept.mutate(
      { token, body: user.data ? {} : form },
      { onSuccess: onAccepted, onError: (error) => setErrors(fieldErrorsOf(error)) },
    );
  }

  return (
    <form className="form" onSubmit={submit} aria-label="Accept invitation" noValidate>
      <p data-testid="invitation-offer">
        {offer.invited_by ?? 'An administrator'} invited <strong>{offer.email}</strong> to join{' '}
        <strong>{offer.organization}</strong> as <strong>{offer.role}</strong>.{' '}
        <span className="muted small">The link works until {formatDateTime(offer.expires_at)}.</span>
      </p>
      {user.data ? (
        <p className="muted">You are signed in as {user.data.username}; you will join with this account.</p>
      ) : (
        <>
          <p className="muted">
            Choose a username and password for your new account, or <Link to={`/login?next=/invitations/${token}`}>sign in</Link>{' '}
            to join with an account you have.
          </p>
          <TextField label="Username" name="username" value={form.username} errors={errors} autoComplete="username"
            maxLength={150} required autoFocus onChange={(username) => setForm((f) => ({ ...f, username }))} />
          <TextField label="Password" name="password" type="password" value={form.password} errors={errors}
            autoComplete="new-password" hint={PASSWORD_HINT} required
            onChange={(password) => setForm((f) => ({ ...f, password }))} />
        </>
      )}
      <FormMessages errors={errors} fields={['username', 'password']} />
      <button type="submit" className="button button-primary button-block" disabled={accept.isPending}>
        {accept.isPending ? 'Joining…' : `Join ${offer.organization}`}
      </button>
    </form>
  );
}
