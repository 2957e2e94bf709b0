import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { server } from './mocks/server';
import { mockBackend } from './mocks/handlers';

// jsdom has no layout engine for Plotly to measure; the charts' data is asserted through
// the container's data-points attribute instead, so a stub that resolves is enough.
vi.mock('@/features/results/components/plotly-charts', () => {
  const stub = { react: vi.fn(() => Promise.resolve()), purge: vi.fn() };
  return { default: stub, ...stub };
});

// findBy*/waitFor wait on a condition, never judge a duration: their deadline only ends a wait
// that would never end, sized for a loaded two-core CI machine (a page's first render, or a
// late chart behind the ones drawn before it, takes seconds there; the library's default is one).
configure({ asyncUtilTimeout: 15_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
// Pages are lazily loaded chunks (src/app/router.tsx). Route tests load them all first: the
// first import of a page transforms its modules, which on a loaded machine takes longer than
// a findBy waits, and is not what those tests are about.
beforeAll(async () => {
  if (expect.getState().testPath?.includes('/src/app/')) await (await import('@/app/router')).loadAllPages();
}, 60_000);
afterEach(() => {
  cleanup();
  server.resetHandlers();
  mockBackend.reset();
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
});
afterAll(() => server.close());
