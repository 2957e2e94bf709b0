import { http, HttpResponse } from 'msw';
import type {
  Device,
  EnrollmentToken,
  EnrollmentTokenCreated,
  EnrollmentTokenRequest,
  FleetRunner,
} from '@/lib/api-types';
import {
  deviceDetailFixture,
  devicesPageFixture,
  enrollmentTokensFixture,
  poolsFixture,
  runnersPageFixture,
} from '../fixtures/devices';

const api = (path: string) => `*/api/v1${path}`;

/** A mocked lab with state a test can inspect: releases, breaker resets and enrollment tokens change it. */
export function mockLab() {
  const state = {
    devices: structuredClone<Device[]>(devicesPageFixture.results),
    runners: structuredClone<FleetRunner[]>(runnersPageFixture.results),
    resetBreakers: [] as string[],
    tokens: structuredClone<EnrollmentToken[]>(enrollmentTokensFixture),
    released: [] as string[],
    createdTokens: [] as EnrollmentTokenRequest[],
    revoked: [] as string[],
  };
  const handlers = [
    http.get(api('/devices'), () =>
      HttpResponse.json({ ...devicesPageFixture, count: state.devices.length, results: state.devices }),
    ),
    http.get(api('/devices/:id'), ({ params }) =>
      params['id'] === deviceDetailFixture.id
        ? HttpResponse.json(deviceDetailFixture)
        : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.post(api('/devices/:id/release'), ({ params }) => {
      const device = state.devices.find((candidate) => candidate.id === params['id']);
      if (!device) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      if (!device.can_release) return HttpResponse.json({ detail: 'Only an owner or admin.' }, { status: 403 });
      state.released.push(device.id);
      Object.assign(device, { state: 'available', state_reason: '', can_release: false, consecutive_infra_failures: 0 });
      return HttpResponse.json(device);
    }),
    http.get(api('/pools'), () => HttpResponse.json(poolsFixture)),
    http.get(api('/runners'), () => HttpResponse.json({ ...runnersPageFixture, results: state.runners })),
    http.post(api('/runners/:id/reset-breaker'), ({ params }) => {
      const runner = state.runners.find((candidate) => candidate.id === params['id']);
      if (!runner) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      if (!runner.can_reset_breaker) return HttpResponse.json({ detail: 'Only an owner or admin.' }, { status: 403 });
      state.resetBreakers.push(runner.id);
      Object.assign(runner, {
        breaker: { tripped: false, tripped_at: null, reason: '', consecutive_lab_faults: 0 },
        can_reset_breaker: false,
      });
      return HttpResponse.json(runner);
    }),
    http.get(api('/pools/:slug/enrollment-tokens'), ({ params }) =>
      HttpResponse.json(state.tokens.filter((token) => token.pool === params['slug'])),
    ),
    http.post(api('/pools/:slug/enrollment-tokens'), async ({ params, request }) => {
      const body = (await request.json()) as EnrollmentTokenRequest;
      state.createdTokens.push(body);
      const listed: EnrollmentToken = {
        id: `e2000000-0000-4000-8000-00000000000${state.createdTokens.length}`,
        pool: String(params['slug']),
        name: body.name ?? '',
        prefix: 'lle_N3wT0k3n',
        created_by: 'ada',
        created_at: '2025-11-20T10:01:00Z',
        expires_at: '2025-11-27T10:01:00Z',
        revoked_at: null,
        last_used_at: null,
        runners_enrolled: 0,
        status: 'active',
      };
      state.tokens.unshift(listed);
      const created: EnrollmentTokenCreated = { ...listed, token: 'lle_N3wT0k3n-secret-shown-once-0123456789abcdef' };
      return HttpResponse.json(created, { status: 201 });
    }),
    http.post(api('/pools/:slug/enrollment-tokens/:id/revoke'), ({ params }) => {
      const token = state.tokens.find((candidate) => candidate.id === params['id']);
      if (!token) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      state.revoked.push(token.id);
      Object.assign(token, { status: 'revoked', revoked_at: '2025-11-20T10:02:00Z' });
      return HttpResponse.json(token);
    }),
  ];
  return { state, handlers };
}
