import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { CSRF_TOKEN, mockBackend } from '@/testing/mocks/handlers';
import { meFixture } from '@/testing/fixtures';
import { server } from '@/testing/mocks/server';
import { LoginForm } from './login-form';

describe('LoginForm', () => {
  it('signs in with a CSRF token fetched first and reports the user', async () => {
    const onSuccess = vi.fn();
    const { user } = renderWithProviders(<LoginForm onSuccess={onSuccess} />);

    await user.type(screen.getByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await vi.waitFor(() => expect(onSuccess).toHaveBeenCalled());
    expect(onSuccess.mock.calls[0]?.[0]).toEqual(meFixture);
    expect(mockBackend.lastCsrfHeader).toBe(CSRF_TOKEN);
  });

  it("shows the server's detail message on a 400", async () => {
    const onSuccess = vi.fn();
    const { user } = renderWithProviders(<LoginForm onSuccess={onSuccess} />);

    await user.type(screen.getByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid username or password.');
    expect(onSuccess).not.toHaveBeenCalled();
  });
});

describe('LoginForm field errors', () => {
  it('names the field when the server answers with a field map', async () => {
    server.use(
      http.post('*/api/v1/auth/login', () =>
        HttpResponse.json({ username: ['This field may not be blank.'] }, { status: 400 }),
      ),
    );
    const { user } = renderWithProviders(<LoginForm onSuccess={vi.fn()} />);
    await user.type(screen.getByLabelText('Password'), 'x');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('username: This field may not be blank.');
  });
});
