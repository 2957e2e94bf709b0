import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@/api/schema';
import { flattenFieldErrors, type FieldError } from './field-errors';
import { answerEarly } from './early-responses';

/** An HTTP error from the API, carrying the decoded JSON body (DRF `{detail}` or a field map). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    super(detailOf(body) ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** A form's errors from a failed request: a 400's field messages, anything else as one message without a field. */
export function fieldErrorsOf(error: Error): FieldError[] {
  return error instanceof ApiError && error.status === 400
    ? flattenFieldErrors(error.body)
    : [{ path: '', message: error.message }];
}

/** `{"detail": …}` as is; a field map as "field: message; …". */
function detailOf(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = body.detail;
    if (typeof detail === 'string') return detail;
  }
  const fields = flattenFieldErrors(body);
  if (fields.length === 0 || typeof body === 'string') return undefined;
  return fields.map(({ path, message }) => (path && path !== 'non_field_errors' ? `${path}: ${message}` : message)).join('; ');
}

export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'X-CSRFToken';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

function origin(): string {
  return globalThis.location?.origin ?? '';
}

/** Django sets the CSRF cookie lazily; ask for it once before the first unsafe request. */
async function ensureCsrfToken(): Promise<string | undefined> {
  const existing = readCookie(CSRF_COOKIE);
  if (existing) return existing;
  await globalThis.fetch(`${origin()}/api/v1/auth/csrf`, { credentials: 'same-origin' });
  return readCookie(CSRF_COOKIE);
}

const csrfMiddleware: Middleware = {
  async onRequest({ request }) {
    if (SAFE_METHODS.has(request.method.toUpperCase())) return request;
    // Read the cookie per request: Django rotates the token at login.
    const token = await ensureCsrfToken();
    if (token) request.headers.set(CSRF_HEADER, token);
    return request;
  },
};

export const api = createClient<paths>({
  baseUrl: origin(),
  credentials: 'same-origin',
  headers: { Accept: 'application/json' },
  // Resolve fetch at call time so test interceptors (MSW) that patch it later are honoured. A GET the
  // HTML's first script already sent is answered by that request (early-responses.ts).
  fetch: (request: Request) => answerEarly(request, (sent) => globalThis.fetch(sent)),
});
api.use(csrfMiddleware);

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/** Returns the body of a successful response or throws an ApiError. */
export async function unwrap<T>(pending: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new ApiError(response.status, error ?? null);
  return data as T;
}
