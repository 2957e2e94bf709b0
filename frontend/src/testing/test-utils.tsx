import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { queryDefaults } from '@/lib/react-query';

/** The app's query defaults without retries; `staleTime` overrides the app's where a test's
 * assertion must not depend on how long a loaded machine takes between two renders. */
export function makeTestQueryClient({ staleTime }: { staleTime?: number } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      ...queryDefaults,
      queries: { ...queryDefaults.queries, retry: false, gcTime: Infinity, ...(staleTime === undefined ? {} : { staleTime }) },
    },
  });
}

/** Renders `element` at `path` (matching `routePath`) with a fresh query client. */
export function renderWithProviders(
  element: ReactElement,
  { path = '/', routePath = '/', extraRoutes = [] }: { path?: string; routePath?: string; extraRoutes?: RouteObject[] } = {},
) {
  const queryClient = makeTestQueryClient();
  const router = createMemoryRouter([{ path: routePath, element }, ...extraRoutes], { initialEntries: [path] });
  const user = userEvent.setup();
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...utils, user, router, queryClient };
}

/** Renders the whole app's route table (made for the test's query client: its loaders prefetch into it) at `path`. */
export function renderRoutes(
  makeRoutes: (queryClient: QueryClient) => RouteObject[],
  path: string,
  { staleTime }: { staleTime?: number } = {},
) {
  const queryClient = makeTestQueryClient({ staleTime });
  const router = createMemoryRouter(makeRoutes(queryClient), { initialEntries: [path] });
  const user = userEvent.setup();
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...utils, user, router, queryClient };
}

/** Replaces a field's value by pasting (one change event): much faster than typing it key by key. */
export async function fill(user: ReturnType<typeof userEvent.setup>, field: HTMLElement, text: string) {
  await user.clear(field);
  await user.click(field);
  await user.paste(text);
}
