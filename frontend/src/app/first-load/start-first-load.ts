/**
 * The HTML's first script (a classic script, external: the CSP allows no inline one). On a page of
 * FIRST_LOAD_PAGES it sends the API requests the page's loader will make, then preloads Plotly's chunk
 * and the page's own chunks and stylesheets, all while the app's bundle is still downloading.
 * vite.first-load.ts compiles this file on its own (no imports but types) and calls
 * `startFirstLoad` with the table of pages and their built files.
 */
import type { FirstLoadPage } from './pages';

/** A page of the table with the files the build made for it. */
export type BuiltFirstLoadPage = FirstLoadPage & {
  /** Plotly's chunk first (the largest, compiled longest), then the page's chunks. */
  modules: string[];
  styles: string[];
};

/** Where the answers wait for the app; src/lib/early-responses.ts takes them (same name). */
const EARLY_RESPONSES = '__latencylabEarlyResponses';
/** When they were asked for (performance.now()); src/lib/early-responses.ts ages them from it. */
const EARLY_RESPONSES_SENT_AT = '__latencylabEarlyResponsesSentAt';

type Fill = (template: string) => string;

export function startFirstLoad(pages: readonly BuiltFirstLoadPage[], fetchEarly: typeof fetch = fetch): void {
  for (const page of pages) {
    const match = new RegExp(page.path).exec(location.pathname);
    if (!match) continue;
    const fill: Fill = (template) => template.replace(/\$(\d)/g, (_, group: string) => asPathParam(match[Number(group)] ?? ''));
    sendRequests(page, fill, fetchEarly);
    for (const href of page.modules) addLink('modulepreload', href);
    for (const href of page.styles) addLink('stylesheet', href);
    return;
  }
}

/** A path segment as the app's API client writes a route parameter: decoded by the router, then encoded. */
function asPathParam(segment: string): string {
  try {
    return encodeURIComponent(decodeURIComponent(segment));
  } catch {
    return segment; // malformed: the app will not find this answer and asks itself
  }
}

function sendRequests(page: BuiltFirstLoadPage, fill: Fill, fetchEarly: typeof fetch): void {
  // Each answer, or null where this script chose not to ask (the app then asks itself).
  const responses: Record<string, Promise<Response | null>> = {};
  (window as unknown as Record<string, unknown>)[EARLY_RESPONSES] = responses;
  (window as unknown as Record<string, unknown>)[EARLY_RESPONSES_SENT_AT] = performance.now();
  // The same request the app's API client would send (src/lib/api-client.ts): its cookie, JSON.
  const get = (url: string) => fetchEarly(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  for (const url of page.requests.map(fill)) responses[url] = get(url);
  const followUp = page.followUp;
  const after = followUp && responses[fill(followUp.after)];
  if (!followUp || !after) return;
  const request = fill(followUp.request);
  // Registered now, so that the app, asking as soon as it has read the same answer, finds it.
  // The status is read from a copy (the app reads the original) taken before the app reads it.
  responses[request] = after
    .then((response) => (response?.ok ? (response.clone().json() as Promise<{ status?: unknown }>) : null))
    .then((body) => (body && followUp.statuses.includes(String(body.status)) ? get(request) : null))
    .catch(() => null);
}

function addLink(rel: string, href: string): void {
  const link = document.createElement('link');
  link.rel = rel;
  link.crossOrigin = '';
  link.href = href;
  document.head.appendChild(link);
}
