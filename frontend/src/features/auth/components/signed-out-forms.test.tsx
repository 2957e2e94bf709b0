import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { meFixture } from '@/testing/fixtures';
import { mockBackend } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { fill, renderWithProviders } from '@/testing/test-utils';
import { AcceptInvitation } from './accept-invitation';
import { ForgotPasswordForm, ResetPasswordForm } from './password-reset-forms';
import { SignupForm } from './signup-form';

const api = (path: string) => `*/api/v1${path}`;

describe('SignupForm', () => {
  it('sends every field and shows the password validators’ message under the password', async () => {
    const sent: unknown[] = [];
    server.use(http.post(api('/auth/signup'), async ({ request }) => {
      sent.push(await request.json());
      return sent.length === 1
        ? HttpResponse.json({ detail: 'password: This password is too common.', password: ['This password is too common.'] },
          { status: 400 })
        : HttpResponse.json(meFixture, { status: 201 });
    }));
    const onSuccess = vi.fn();
    const { user } = renderWithProviders(<SignupForm onSuccess={onSuccess} />);
    await fill(user, screen.getByLabelText('Organization'), 'Acme Mobile');
    await fill(user, screen.getByLabelText('Username'), 'ada');
    await fill(user, screen.getByLabelText('Email'), 'ada@example.com');
    await fill(user, screen.getByLabelText('Password'), 'password123');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('This password is too common.')).toBeInTheDocument();
    // Said once, under its field: not again in a form-level alert.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
    expect(onSuccess).not.toHaveBeenCalled();

    await user.clear(screen.getByLabelText('Password'));
    await fill(user, screen.getByLabelText('Password'), 'lantern-orbit-42');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await vi.waitFor(() => expect(onSuccess).toHaveBeenCalled());
    expect(sent[1]).toEqual({ organization_name: 'Acme Mobile', username: 'ada', email: 'ada@example.com',
      password: 'lantern-orbit-42' });
  });
});

describe('AcceptInvitation', () => {
  const offer = { organization: 'Acme Mobile', email: 'vic@example.com', role: 'viewer', invited_by: 'ada',
    expires_at: '2026-11-27T09:00:00Z' };

  it('signs a new person up with the invitation', async () => {
    mockBackend.signedIn = false;
    let body: unknown;
    server.use(
      http.get(api('/auth/invitations/:token'), () => HttpResponse.json(offer)),
      http.post(api('/auth/invitations/:token/accept'), async ({ request, params }) => {
        body = { token: params.token, ...((await request.json()) as object) };
        return HttpResponse.json({ ...meFixture, username: 'vic', role: 'viewer' });
      }),
    );
    const onAccepted = vi.fn();
    const { user } = renderWithProviders(<AcceptInvitation token="lli_secret" onAccepted={onAccepted} />);
    expect(await screen.findByTestId('invitation-offer')).toHaveTextContent(
      'ada invited vic@example.com to join Acme Mobile as viewer.');
    await fill(user, screen.getByLabelText('Username'), 'vic');
    await fill(user, screen.getByLabelText('Password'), 'quiet-harbor-77');
    await user.click(screen.getByRole('button', { name: 'Join Acme Mobile' }));
    await vi.waitFor(() => expect(onAccepted).toHaveBeenCalled());
    expect(body).toEqual({ token: 'lli_secret', username: 'vic', password: 'quiet-harbor-77' });
  });

  it('lets a signed-in user join with one click', async () => {
    let body: unknown;
    server.use(
      http.get(api('/auth/invitations/:token'), () => HttpResponse.json(offer)),
      http.post(api('/auth/invitations/:token/accept'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(meFixture);
      }),
    );
    const onAccepted = vi.fn();
    const { user } = renderWithProviders(<AcceptInvitation token="lli_secret" onAccepted={onAccepted} />);
    expect(await screen.findByText(/You are signed in as ada/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Join Acme Mobile' }));
    await vi.waitFor(() => expect(onAccepted).toHaveBeenCalled());
    expect(body).toEqual({});
  });

  it('says why a used link no longer works', async () => {
    server.use(http.get(api('/auth/invitations/:token'), () =>
      HttpResponse.json({ detail: 'This invitation was accepted already.' }, { status: 410 })));
    renderWithProviders(<AcceptInvitation token="lli_used" onAccepted={vi.fn()} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('This invitation was accepted already.');
  });
});

describe('password reset', () => {
  it('asks for a link and shows the same answer whoever asks', async () => {
    server.use(http.post(api('/auth/password-reset'), () =>
      HttpResponse.json({ detail: 'If an account uses that email, a link to reset its password is on its way.' })));
    const { user } = renderWithProviders(<ForgotPasswordForm />);
    await fill(user, screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Email me a link' }));
    expect(await screen.findByRole('status')).toHaveTextContent('If an account uses that email');
  });

  it('sets the new password with the link’s uid and token, and shows a refused link', async () => {
    const sent: unknown[] = [];
    server.use(http.post(api('/auth/password-reset/confirm'), async ({ request }) => {
      sent.push(await request.json());
      return HttpResponse.json({ detail: 'This password reset link is not valid or has expired; ask for a new one.',
        token: ['Not valid or expired.'] }, { status: 400 });
    }));
    const { user } = renderWithProviders(<ResetPasswordForm uid="MQ" token="abc-123" />);
    await fill(user, screen.getByLabelText('New password'), 'violet-canyon-19');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('not valid or has expired');
    expect(sent).toEqual([{ uid: 'MQ', token: 'abc-123', new_password: 'violet-canyon-19' }]);
  });
});
