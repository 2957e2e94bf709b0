/**
 * Answers to requests the HTML's first script sent before the app had started
 * (src/app/first-load/start-first-load.ts): the API client takes one instead of sending the same
 * GET again. Each answer is taken once, and only early in the page's life: a later request (a
 * refetch, polling, a navigation back to the page) wants a fresh answer.
 */

/** Where the first script leaves the answers (the same name there). */
const EARLY_RESPONSES = '__latencylabEarlyResponses';

/** Past this time since the page's navigation started, the early answers are stale and never used. */
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
  return performance.now() <= EARLY_RESPONSE_MAX_AGE_MS ? response : undefined;
}
