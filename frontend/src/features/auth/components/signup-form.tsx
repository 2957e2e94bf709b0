import { useState, type FormEvent } from 'react';
import { FormMessages, TextField } from '@/components/text-field';
import { fieldErrorsOf } from '@/lib/api-client';
import type { Me } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { useSignup } from '../api/accounts';

export const PASSWORD_HINT = 'At least 10 characters, not a common password, not only digits.';
const FIELDS = ['username', 'email', 'password', 'organization_name'];

/** A new account and a new organization it owns; the server checks everything again. */
export function SignupForm({ onSuccess }: { onSuccess: (me: Me) => void }) {
  const [form, setForm] = useState({ username: '', email: '', password: '', organization_name: '' });
  const [errors, setErrors] = useState<FieldError[]>([]);
  const signup = useSignup();
  const set = (field: keyof typeof form) => (value: string) => setForm((current) => ({ ...current, [field]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors([]);
    signup.mutate(form, { onSuccess, onError: (error) => setErrors(fieldErrorsOf(error)) });
  }

  return (
    <form className="form" onSubmit={submit} aria-label="Sign up" noValidate>
      <TextField label="Organization" name="organization_name" value={form.organization_name}
        onChange={set('organization_name')} errors={errors} maxLength={200} required autoFocus
        hint="Your team or company; you will be its owner." />
      <TextField label="Username" name="username" value={form.username} onChange={set('username')} errors={errors}
        autoComplete="username" maxLength={150} required />
      <TextField label="Email" name="email" type="email" value={form.email} onChange={set('email')} errors={errors}
        autoComplete="email" required />
      <TextField label="Password" name="password" type="password" value={form.password} onChange={set('password')}
        errors={errors} autoComplete="new-password" hint={PASSWORD_HINT} required />
      <FormMessages errors={errors} fields={FIELDS} />
      <button type="submit" className="button button-primary button-block" disabled={signup.isPending}>
        {signup.isPending ? 'Creating your organization…' : 'Create account'}
      </button>
    </form>
  );
}
