import { useState, type FormEvent } from 'react';
import { FormMessages, TextField } from '@/components/text-field';
import { fieldErrorsOf } from '@/lib/api-client';
import type { FieldError } from '@/lib/field-errors';
import { useConfirmPasswordReset, useRequestPasswordReset } from '../api/accounts';
import { PASSWORD_HINT } from './signup-form';

/** Asks for a reset link; the answer is the same whether or not an account uses the email. */
export function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const request = useRequestPasswordReset();

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors([]);
    request.mutate(email, { onError: (error) => setErrors(fieldErrorsOf(error)) });
  }

  if (request.isSuccess) return <p role="status" className="alert alert-info">{request.data.detail}</p>;
  return (
    <form className="form" onSubmit={submit} aria-label="Reset password" noValidate>
      <TextField label="Email" name="email" type="email" value={email} onChange={setEmail} errors={errors}
        autoComplete="email" required autoFocus />
      <FormMessages errors={errors} fields={['email']} />
      <button type="submit" className="button button-primary button-block" disabled={request.isPending}>
        {request.isPending ? 'Sending…' : 'Email me a link'}
      </button>
    </form>
  );
}

/** Sets the new password with the emailed link's uid and token. */
export function ResetPasswordForm({ uid, token }: { uid: string; token: string }) {
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldError[]>([]);
  const confirm = useConfirmPasswordReset();

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors([]);
    confirm.mutate({ uid, token, new_password: password }, { onError: (error) => setErrors(fieldErrorsOf(error)) });
  }

  if (confirm.isSuccess) return <p role="status" className="alert alert-info">{confirm.data.detail}</p>;
  return (
    <form className="form" onSubmit={submit} aria-label="Set a new password" noValidate>
      <TextField label="New password" name="new_password" type="password" value={password} onChange={setPassword}
        errors={errors} autoComplete="new-password" hint={PASSWORD_HINT} required autoFocus />
      <FormMessages errors={errors} fields={['new_password']} />
      <button type="submit" className="button button-primary button-block" disabled={confirm.isPending}>
        {confirm.isPending ? 'Saving…' : 'Set password'}
      </button>
    </form>
  );
}
