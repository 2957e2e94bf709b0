import { http, HttpResponse } from 'msw';
import type { ComparisonDetail, ComparisonSpecRequest } from '@/lib/api-types';
import {
  comparisonDetailFixture,
  comparisonsPageFixture,
  meFixture,
  networkProfilesFixture,
  presetsFixture,
  resultsFixture,
  verdictOf,
} from '../fixtures';
import { poolsFixture } from '../fixtures/devices';

export const CSRF_TOKEN = 'test-csrf-token';

/** The mocked backend's state; reset between tests. */
export const mockBackend = {
  signedIn: true,
  signupOpen: true,
  created: [] as ComparisonSpecRequest[],
  validated: [] as ComparisonSpecRequest[],
  lastCsrfHeader: null as string | null,
  reset() {
    this.signedIn = true;
    this.signupOpen = true;
    this.created = [];
    this.validated = [];
    this.lastCsrfHeader = null;
  },
};

const api = (path: string) => `*/api/v1${path}`;

export const handlers = [
  http.get(api('/auth/csrf'), () => {
    document.cookie = `csrftoken=${CSRF_TOKEN}; path=/`;
    return new HttpResponse(null, { status: 204 });
  }),
  http.get(api('/auth/me'), () =>
    mockBackend.signedIn
      ? HttpResponse.json(meFixture)
      : HttpResponse.json({ detail: 'Authentication credentials were not provided.' }, { status: 403 }),
  ),
  http.get(api('/auth/signup'), () => HttpResponse.json({ open: mockBackend.signupOpen })),
  http.post(api('/auth/login'), async ({ request }) => {
    mockBackend.lastCsrfHeader = request.headers.get('X-CSRFToken');
    const body = (await request.json()) as { username?: string; password?: string };
    if (body.username === 'ada' && body.password === 'correct horse') {
      mockBackend.signedIn = true;
      return HttpResponse.json(meFixture);
    }
    return HttpResponse.json({ detail: 'Invalid username or password.' }, { status: 400 });
  }),
  http.post(api('/auth/logout'), () => {
    mockBackend.signedIn = false;
    return new HttpResponse(null, { status: 204 });
  }),
  http.get(api('/presets'), () => HttpResponse.json(presetsFixture)),
  http.get(api('/network-profiles'), () => HttpResponse.json(networkProfilesFixture)),
  http.get(api('/pools'), () => HttpResponse.json(poolsFixture)),
  http.get(api('/comparisons'), () => HttpResponse.json(comparisonsPageFixture)),
  http.post(api('/comparisons'), async ({ request }) => {
    mockBackend.lastCsrfHeader = request.headers.get('X-CSRFToken');
    const spec = (await request.json()) as ComparisonSpecRequest;
    mockBackend.created.push(spec);
    const created: ComparisonDetail = {
      ...comparisonDetailFixture,
      id: '3a4b5c6d-7e8f-4091-a2b3-c4d5e6f70812',
      name: spec.name ?? `${spec.preset ?? 'comparison'}`,
      status: 'queued',
      runs: [],
    };
    return HttpResponse.json(created, { status: 201 });
  }),
  // The builder's dry run: every spec is valid here; tests that need a refusal override it.
  http.post(api('/comparisons/validate'), async ({ request }) => {
    const spec = (await request.json()) as ComparisonSpecRequest;
    mockBackend.validated.push(spec);
    const runs = (spec.network_profiles ?? ['none']).length * (spec.devices?.count ?? 1);
    return HttpResponse.json({
      spec,
      estimate: {
        runs,
        blocks_min: runs * 6,
        blocks_max: runs * 6,
        requests_min: runs * 1200,
        requests_max: runs * 1200,
        device_minutes_min: runs * 4,
        device_minutes_max: runs * 4,
        seconds_per_request: 0.2,
        pace_basis: 'recent',
        pace_comparisons: 3,
      },
      // As the service warns: a host the `.invalid` TLD names never resolves.
      warnings: (spec.arms ?? []).flatMap((arm, index) =>
        arm.endpoint?.includes('.invalid')
          ? [{ field: `arms.${index}.endpoint`, message: `${new URL(arm.endpoint).hostname} does not resolve (arm '${arm.label}').` }]
          : [],
      ),
    });
  }),
  http.get(api('/comparisons/:id'), ({ params }) =>
    params['id'] === comparisonDetailFixture.id
      ? HttpResponse.json(comparisonDetailFixture)
      : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
  ),
  http.get(api('/comparisons/:id/results'), () => HttpResponse.json(resultsFixture)),
  http.get(api('/comparisons/:id/verdict'), ({ params }) => {
    const verdict = verdictOf(String(params['id']));
    return verdict
      ? HttpResponse.json(verdict)
      : HttpResponse.json({ detail: 'The comparison is running; its verdict exists once it is finished.' }, { status: 409 });
  }),
  // Pages that every route test passes through: the home page and the comparison page's Share
  // panel (their own tests install richer handlers with server.use).
  http.get(api('/home'), () => HttpResponse.json({ recent: [], in_flight: [], farm: { devices: 0, platforms: [] } })),
  http.get(api('/comparisons/:id/shares'), () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })),
  http.post(api('/comparisons/:id/cancel'), () =>
    HttpResponse.json({ ...comparisonDetailFixture, status: 'cancelled' }),
  ),
];
