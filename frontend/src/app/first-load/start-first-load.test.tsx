import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestQueryClient, renderRoutes } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { apiRequestsDuring } from '@/testing/api-requests';
import { mockBackend } from '@/testing/mocks/handlers';
import { comparisonDetailFixture } from '@/testing/fixtures';
import { publicReportFixture } from '@/features/reports/testing/fixtures';
import { makeRoutes } from '@/app/router';
import { prefetchComparisonPage, prefetchSignedInPage } from '@/app/page-data';
import { FIRST_LOAD_PAGES } from './pages';
import { startFirstLoad, type BuiltFirstLoadPage } from './start-first-load';

// The table as the build fills it (vite.first-load.ts): Plotly's chunk first, then the page's.
const BUILT: BuiltFirstLoadPage[] = FIRST_LOAD_PAGES.map((page) => ({
  ...page,
  modules: ['/assets/plotly-charts.js', `/assets/${page.page.split('/').pop()}.js`],
  styles: ['/assets/page.css'],
}));

const id = comparisonDetailFixture.id;
const comparisonPage = `/comparisons/${id}`;

/** The first script as the browser runs it at `path`, its requests going to the mock server. */
function runFirstScript(path: string): string[] {
  window.history.replaceState(null, '', path);
  const sent: string[] = [];
  // The script sends path strings; Node's fetch wants an absolute URL.
  startFirstLoad(BUILT, (path, init) => {
    sent.push(path as string);
    return fetch(new URL(path as string, location.origin), init);
  });
  return sent;
}

const links = (rel: string) => [...document.head.querySelectorAll<HTMLLinkElement>(`link[rel="${rel}"]`)].map((link) => link.getAttribute('href'));
const sorted = (paths: readonly string[]) => [...paths].sort();

beforeEach(() => {
  document.head.querySelectorAll('link').forEach((link) => link.remove());
});
afterEach(() => {
  delete (window as unknown as Record<string, unknown>)['__latencylabEarlyResponses'];
  window.history.replaceState(null, '', '/');
});

describe("the HTML's first script", () => {
  it("sends what the comparison page's loaders ask for, and the verdict once the comparison has one", async () => {
    // What the comparison route's loaders (and its layout's) ask for.
    const asked = await apiRequestsDuring(async (paths) => {
      const queryClient = makeTestQueryClient();
      prefetchSignedInPage(queryClient);
      prefetchComparisonPage(queryClient, id);
      await waitFor(() => expect(paths).toContain(`/api/v1/comparisons/${id}/verdict`));
    });
    expect(asked).toHaveLength(4);
    const sent = runFirstScript(comparisonPage);
    await waitFor(() => expect(sent).toHaveLength(asked.length));
    expect(sorted(sent)).toEqual(sorted(asked));
    expect(sent.at(-1)).toBe(`/api/v1/comparisons/${id}/verdict`); // after the comparison said it has one
    // Plotly's chunk first: the largest, and the longest to compile.
    expect(links('modulepreload')).toEqual(['/assets/plotly-charts.js', '/assets/comparison.tsx.js']);
    expect(links('stylesheet')).toEqual(['/assets/page.css']);
  });

  it('does not ask for the verdict of a running comparison (the API answers 409 until it is finished)', async () => {
    server.use(http.get(`*/api/v1/comparisons/${id}`, () => HttpResponse.json({ ...comparisonDetailFixture, status: 'running' })));
    const sent = runFirstScript(comparisonPage);
    const early = window as unknown as Record<string, Record<string, Promise<Response | null>>>;
    // The verdict's place is taken at once, and resolves to "not asked" once the comparison has answered.
    expect(await early['__latencylabEarlyResponses']?.[`/api/v1/comparisons/${id}/verdict`]).toBeNull();
    expect(sent).not.toContain(`/api/v1/comparisons/${id}/verdict`);
  });

  it('answers the app: each request goes out once, from the first script, and the page renders from it', async () => {
    const asked = await apiRequestsDuring(async (paths) => {
      runFirstScript(comparisonPage);
      // Answers that never go stale: a loaded test worker can take longer than the app's 5 s
      // staleTime between the first script's answers and the render, and the page would rightly
      // ask again (as page-data.test.tsx).
      renderRoutes(makeRoutes, comparisonPage, { staleTime: Infinity });
      await screen.findByRole('heading', { level: 1, name: comparisonDetailFixture.name });
      await waitFor(() => expect(paths).toContain(`/api/v1/comparisons/${id}/verdict`));
    });
    for (const path of ['/api/v1/auth/me', `/api/v1/comparisons/${id}`, `/api/v1/comparisons/${id}/results`, `/api/v1/comparisons/${id}/verdict`]) {
      expect(asked.filter((candidate) => candidate === path)).toHaveLength(1);
    }
  });

  it("sends a shared report's one request, with no session", async () => {
    mockBackend.signedIn = false;
    server.use(http.get('*/api/v1/public/reports/:token', () => HttpResponse.json(publicReportFixture)));
    const asked = await apiRequestsDuring(async () => {
      runFirstScript('/r/lls_good');
      renderRoutes(makeRoutes, '/r/lls_good');
      await screen.findByRole('heading', { level: 1, name: 'Mid image series on Pixel 8' });
    });
    expect(asked.filter((path) => path === '/api/v1/public/reports/lls_good')).toHaveLength(1);
  });

  it('does nothing on a page without charts', () => {
    for (const path of ['/comparisons', '/comparisons/new', '/devices', '/']) {
      expect(runFirstScript(path)).toEqual([]);
    }
    expect(links('modulepreload')).toEqual([]);
  });
});
