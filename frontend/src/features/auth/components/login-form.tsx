import { useState, type FormEvent } from 'react';
import { useLogin } from '../api/login';
import type { Me } from '@/lib/api-types';

type LoginFormProps = { onSuccess: (me: Me) => void };

export function LoginForm({ onSuccess }: LoginFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const loginMutation = useLogin();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    loginMutation.mutate({ username, password }, { onSuccess });
  }

  return (
    <form className="form" onSubmit={handleSubmit} aria-label="Sign in" noValidate>
      <div className="field">
        <label htmlFor="login-username">Username</label>
        <input
          id="login-username"
          name="username"
          autoComplete="username"
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          required
          autoFocus
        />
      </div>
      <div className="field">
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          required
        />
      </div>
      {loginMutation.isError && (
        <p role="alert" className="alert alert-error">
          {loginMutation.error.message}
        </p>
      )}
      <button type="submit" className="button button-primary button-block" disabled={loginMutation.isPending}>
        {loginMutation.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
