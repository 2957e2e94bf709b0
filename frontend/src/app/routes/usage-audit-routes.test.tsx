import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { makeRoutes } from '@/app/router';
import { server } from '@/testing/mocks/server';
import { renderRoutes } from '@/testing/test-utils';

describe('usage and audit log routes', () => {
  it.each([
    ['/usage', 'Usage'],
    ['/audit-log', 'Audit log'],
  ])('answers %s with its page under the Settings sub-navigation', async (path, title) => {
    server.use(
      http.get('*/api/v1/usage', () => HttpResponse.json({ monthly_quota_device_minutes: null, months: [] })),
      http.get('*/api/v1/audit-events', () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })),
    );
    renderRoutes(makeRoutes, path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    const settings = screen.getByRole('navigation', { name: 'Settings' });
    expect(within(settings).getByRole('link', { name: title })).toHaveAttribute('aria-current', 'page');
  });
});
