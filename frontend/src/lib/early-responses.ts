/**
 * Answers to requests the HTML's first script sent before the app had started
 * (src/app/first-load/start-first-load.ts): the API client takes one instead of sending the same
 * GET again. Each answer is taken once, and only early in the page's life: a later request (a
 * refetch, polling, a navigation back to the page) wants a fresh answer.
 */

/** Where the first script leaves the answers (the same name there). */
const EARLY_RESPONSES = '__latencylabEarlyResponses';
/** When the first script asked for them (performance.now()). */
const EARLY_RESPONSES_SENT_AT = '__latencylabEarlyResponsesSentAt';

/**
 * Past this time since the first script asked, the early answers are stale and never used. Aged
 * from the asking, not from the navigation (performance.now()'s origin): on a page the two are
 * the same, but a test's window lives as long as its worker, and a test file that ran after ten
 * seconds of others found every answer stale and asked twice.
 */
export const EARLY_RESPONSE_MAX_AGE_MS = 10_000;

/** Each answer by path and query; null where the first script chose not to ask. */
type EarlyResponses = Record<string, Promise<Response | null> | undefined>;

/**
 * Answers `request` with the first script's answer to the same GET (path and query), taken from
 * the store, or else with `send(request)`. Only a successful early answer is used: an error may
 * no longer hold (a visitor signed out then signs in, and the page asks again). Any other method
 * (signing in, a change) drops every early answer left: they may describe the state before it.
 */
export function answerEarly(request: Request, send: (request: Request) => Promise<Response>): Promise<Response> {
  if (request.method !== 'GET') {
    delete (globalThis as unknown as Record<string, unknown>)[EARLY_RESPONSES];
    return send(request);
  }
  const early = takeEarly(request);
  return early ? early.then((response) => (response?.ok ? response : send(request))) : send(request);
}

function takeEarly(request: Request): Promise<Response | null> | undefined {
  const responses = (globalThis as unknown as Record<string, EarlyResponses | undefined>)[EARLY_RESPONSES];
  if (!responses) return undefined;
  const url = new URL(request.url);
  if (url.origin !== globalThis.location?.origin) return undefined;
  const key = url.pathname + url.search;
  const response = responses[key];
  if (!response) return undefined;
  delete responses[key];
  const sentAt = (globalThis as unknown as Record<string, number | undefined>)[EARLY_RESPONSES_SENT_AT] ?? 0;
  return performance.now() - sentAt <= EARLY_RESPONSE_MAX_AGE_MS ? response : undefined;
}
