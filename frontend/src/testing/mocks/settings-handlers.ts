import { http, HttpResponse } from 'msw';
import type {
  ApiToken,
  ApiTokenCreated,
  ApiTokenRequest,
  NetworkProfile,
  NetworkProfileBounds,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookRequest,
  WebhookUpdateRequest,
} from '@/lib/api-types';
import { networkProfilesFixture } from '../fixtures';
import boundsJson from '../fixtures/network-profile-bounds.json';

const api = (path: string) => `*/api/v1${path}`;
export const networkProfileBoundsFixture = boundsJson as NetworkProfileBounds;

type DirectionSpec = Record<string, number> & { gilbert?: Record<string, number> };
type Spec = { down: DirectionSpec; up: DirectionSpec; blackouts: Record<string, number>[] };

/** DRF's messages for the numbers of `values` outside `bounds`, by field. */
function outOfBounds(values: Record<string, unknown>, bounds: NetworkProfileBounds['direction']): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = bounds[key];
    if (typeof value !== 'number' || !field) continue;
    if (field.maximum !== undefined && value > field.maximum) {
      errors[key] = [`Ensure this value is less than or equal to ${field.maximum}.`];
    }
    if (field.minimum !== undefined && value < field.minimum) {
      errors[key] = [`Ensure this value is greater than or equal to ${field.minimum}.`];
    }
  }
  return errors;
}

/** Checks a submitted spec against the bounds fixture the way the server does, with DRF's messages. */
function boundErrors(spec: Spec): Record<string, unknown> | null {
  const errors: Record<string, Record<string, unknown>> = {};
  for (const direction of ['down', 'up'] as const) {
    const { gilbert, ...fields } = spec[direction] ?? {};
    const problems: Record<string, unknown> = outOfBounds(fields, networkProfileBoundsFixture.direction);
    const gilbertProblems = gilbert ? outOfBounds(gilbert, networkProfileBoundsFixture.gilbert) : {};
    if (Object.keys(gilbertProblems).length) problems['gilbert'] = gilbertProblems;
    if (fields['loss_model'] === ('gilbert_elliott' as unknown) && !gilbert && fields['burst'] === undefined) {
      problems['gilbert'] = ['Required when loss_model is gilbert_elliott (or burst).'];
    }
    if (Object.keys(problems).length) errors[direction] = problems;
  }
  return Object.keys(errors).length ? { spec: errors } : null;
}

/** A mocked settings backend whose state a test can inspect. */
type SettingsSeed = { tokens?: ApiToken[]; webhooks?: Webhook[]; deliveries?: Record<string, WebhookDelivery[]> };

export function mockSettings({ tokens = [], webhooks = [], deliveries = {} }: SettingsSeed = {}) {
  const state = {
    profiles: structuredClone<NetworkProfile[]>(networkProfilesFixture),
    profileRequests: [] as unknown[],
    tokens: structuredClone(tokens),
    tokenRequests: [] as ApiTokenRequest[],
    revoked: [] as string[],
    webhooks: structuredClone(webhooks),
    webhookRequests: [] as WebhookRequest[],
    updates: [] as { id: string; body: WebhookUpdateRequest }[],
    deleted: [] as string[],
    deliveries: structuredClone(deliveries),
    redelivered: [] as string[],
  };
  const handlers = [
    http.get(api('/network-profiles'), () => HttpResponse.json(state.profiles)),
    http.get(api('/network-profiles/bounds'), () => HttpResponse.json(networkProfileBoundsFixture)),
    http.post(api('/network-profiles'), async ({ request }) => {
      const body = (await request.json()) as { name: string; description: string; spec: Spec };
      state.profileRequests.push(body);
      const problems = boundErrors(body.spec);
      if (problems) return HttpResponse.json(problems, { status: 400 });
      const defaults: Record<string, number> = { delay_ms: 0, jitter_ms: 0, loss_pct: 0, queue_packets: 1000 };
      const down = { ...defaults, ...body.spec.down };
      const up = { ...defaults, ...body.spec.up };
      const profile: NetworkProfile = {
        name: body.name, built_in: false, origin: 'custom', description: body.description,
        down_kbit: down['rate_kbit'] ?? null, up_kbit: up['rate_kbit'] ?? null,
        rtt_ms: (down['delay_ms'] ?? 0) + (up['delay_ms'] ?? 0), loss_pct: down['loss_pct'] ?? 0,
        spec: { name: body.name, down, up, blackouts: body.spec.blackouts },
      };
      state.profiles.push(profile);
      return HttpResponse.json(profile, { status: 201 });
    }),
    http.get(api('/tokens'), () => HttpResponse.json(state.tokens)),
    http.post(api('/tokens'), async ({ request }) => {
      const body = (await request.json()) as ApiTokenRequest;
      state.tokenRequests.push(body);
      if (!body.name) return HttpResponse.json({ name: ['Give the token a name (1–100 characters).'] }, { status: 400 });
      if (body.scopes.length === 0) {
        return HttpResponse.json({ scopes: ['Choose one or more of ci, read, write.'] }, { status: 400 });
      }
      const listed: ApiToken = {
        id: `70000000-0000-4000-8000-00000000000${state.tokenRequests.length}`,
        name: body.name, prefix: 'llt_N3wT0k3n', scopes: [...body.scopes].sort(), created_by: 'ada',
        created_at: '2026-11-20T10:00:00Z', last_used_at: null,
        expires_at: body.expires_in_days ? '2026-12-20T10:00:00Z' : null, revoked_at: null, status: 'active',
      };
      state.tokens.unshift(listed);
      const created: ApiTokenCreated = { ...listed, token: 'llt_N3wT0k3n-the-secret-shown-once-0123456789' };
      return HttpResponse.json(created, { status: 201 });
    }),
    http.post(api('/tokens/:id/revoke'), ({ params }) => {
      const token = state.tokens.find((candidate) => candidate.id === params['id']);
      if (!token) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      state.revoked.push(token.id);
      Object.assign(token, { status: 'revoked', revoked_at: '2026-11-20T11:00:00Z' });
      return HttpResponse.json(token);
    }),
    http.get(api('/webhooks'), () =>
      HttpResponse.json({ count: state.webhooks.length, next: null, previous: null, results: state.webhooks }),
    ),
    http.post(api('/webhooks'), async ({ request }) => {
      const body = (await request.json()) as WebhookRequest;
      state.webhookRequests.push(body);
      if (!body.url.startsWith('https://')) {
        return HttpResponse.json({ url: ['Must be https:// (http:// only to localhost).'] }, { status: 400 });
      }
      const webhook: Webhook = {
        id: `80000000-0000-4000-8000-00000000000${state.webhookRequests.length}`,
        url: body.url, events: body.events ?? [], active: true, created_at: '2026-11-20T10:00:00Z',
      };
      state.webhooks.unshift(webhook);
      state.deliveries[webhook.id] = [];
      const created: WebhookCreated = { ...webhook, secret: 'whsec_the-signing-secret-shown-once' };
      return HttpResponse.json(created, { status: 201 });
    }),
    http.patch(api('/webhooks/:id'), async ({ params, request }) => {
      const webhook = state.webhooks.find((candidate) => candidate.id === params['id']);
      if (!webhook) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      const body = (await request.json()) as WebhookUpdateRequest;
      state.updates.push({ id: webhook.id, body });
      if (body.events && body.events.length === 0) {
        return HttpResponse.json({ events: ['Ensure this field has at least 1 elements.'] }, { status: 400 });
      }
      Object.assign(webhook, body);
      return HttpResponse.json(webhook);
    }),
    http.delete(api('/webhooks/:id'), ({ params }) => {
      state.deleted.push(String(params['id']));
      state.webhooks = state.webhooks.filter((candidate) => candidate.id !== params['id']);
      return new HttpResponse(null, { status: 204 });
    }),
    http.get(api('/webhooks/:id/deliveries'), ({ params }) => {
      const results = state.deliveries[String(params['id'])];
      if (!results) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      return HttpResponse.json({ count: results.length, next: null, previous: null, results });
    }),
    http.post(api('/webhooks/:id/deliveries/:delivery/redeliver'), ({ params }) => {
      const delivery = state.deliveries[String(params['id'])]?.find((candidate) => candidate.id === params['delivery']);
      if (!delivery) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      state.redelivered.push(delivery.id);
      // The mocked receiver answers at once: the new attempt succeeds.
      Object.assign(delivery, {
        status: 'succeeded', attempts: delivery.attempts + 1, last_status_code: 200, last_error: '',
        delivered_at: '2026-11-20T12:00:00Z',
      });
      return HttpResponse.json(delivery, { status: 202 });
    }),
  ];
  return { state, handlers };
}
