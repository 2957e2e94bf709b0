import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTestQueryClient } from '@/testing/test-utils';
import { server } from '@/testing/mocks/server';
import { publicReportFixture } from '@/features/reports/testing/fixtures';
import { comparisonDetailFixture } from '@/testing/fixtures';
import { preloadPlotly } from '@/features/results/components/plot';
import { makeRoutes } from '@/app/router';
import { FIRST_LOAD_PAGES } from './pages';

// Which routes' loaders start Plotly, without loading it.
vi.mock('@/features/results/components/plot', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  preloadPlotly: vi.fn(),
}));

const CHART_PAGES = [`/comparisons/${comparisonDetailFixture.id}`, '/r/lls_good', '/trends'];
const OTHER_PAGES = ['/', '/comparisons', '/comparisons/new', '/comparisons/new/har', '/devices', '/tokens', '/signup'];

const entriesFor = (path: string) => FIRST_LOAD_PAGES.filter((page) => new RegExp(page.path).test(path));

/** The route table's loaders for `path`, run as on a first load (nothing rendered). */
async function load(path: string): Promise<void> {
  const router = createMemoryRouter(makeRoutes(makeTestQueryClient()), { initialEntries: [path] });
  await waitFor(() => expect(router.state.initialized).toBe(true));
  router.dispose();
}

afterEach(() => vi.mocked(preloadPlotly).mockClear());

describe("the first script's table of chart pages", () => {
  it.each(CHART_PAGES)('has the route %s, whose loader starts Plotly', async (path) => {
    server.use(http.get('*/api/v1/public/reports/:token', () => HttpResponse.json(publicReportFixture)));
    expect(entriesFor(path)).toHaveLength(1);
    await load(path);
    expect(preloadPlotly).toHaveBeenCalled();
  });

  it('has an entry for each of them, and no other', () => {
    expect(new Set(CHART_PAGES.flatMap(entriesFor))).toEqual(new Set(FIRST_LOAD_PAGES));
  });

  it.each(OTHER_PAGES)('leaves out %s, whose loaders do not start Plotly', async (path) => {
    expect(entriesFor(path)).toEqual([]);
    await load(path);
    expect(preloadPlotly).not.toHaveBeenCalled();
  });
});
