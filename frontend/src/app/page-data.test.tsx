import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '@/testing/test-utils';
import { apiRequestsDuring } from '@/testing/api-requests';
import { comparisonDetailFixture } from '@/testing/fixtures';
import { makeRoutes } from '@/app/router';

const marks = (name: string) => performance.getEntriesByName(name).length;

describe("a page's data, asked for as its navigation starts", () => {
  it('a page without charts never loads Plotly', async () => {
    renderRoutes(makeRoutes, '/comparisons');
    expect(await screen.findByRole('heading', { level: 1, name: 'Comparisons' })).toBeInTheDocument();
    expect(marks('latencylab:plotly-requested')).toBe(0);
  });

  it('asks for the user, the comparison, its results and then its verdict before the page has rendered', async () => {
    const id = comparisonDetailFixture.id;
    const paths = await apiRequestsDuring(async (asked) => {
      // Answers never go stale here: the app refetches one older than 5 s on mount, and a loaded
      // test worker can take that long between the loaders and the page's render. What this test
      // proves is that the components read the loaders' cache entries (the same keys).
      renderRoutes(makeRoutes, `/comparisons/${id}`, { staleTime: Infinity });
      // The loaders have run: every request is out before the page's first paint of the comparison.
      await waitFor(() => expect(asked).toContain(`/api/v1/comparisons/${id}/verdict`));
      expect(screen.queryByRole('heading', { level: 1, name: comparisonDetailFixture.name })).toBeNull();
      await screen.findByRole('heading', { level: 1, name: comparisonDetailFixture.name });
    });
    expect(paths.slice(0, 3).sort()).toEqual(
      ['/api/v1/auth/me', `/api/v1/comparisons/${id}`, `/api/v1/comparisons/${id}/results`].sort(),
    );
    // Each once: the components found the answers in the cache instead of asking again.
    for (const path of ['/api/v1/auth/me', `/api/v1/comparisons/${id}`, `/api/v1/comparisons/${id}/results`]) {
      expect(paths.filter((candidate) => candidate === path), path).toHaveLength(1);
    }
    expect(marks('latencylab:plotly-requested')).toBe(1);
  });
});
