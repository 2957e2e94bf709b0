import type { QueryClient } from '@tanstack/react-query';
import { meQueryOptions } from '@/features/auth/api/get-me';
import { comparisonQueryOptions } from '@/features/comparisons/api/get-comparison';
import { resultsQueryOptions } from '@/features/results/api/get-results';
import { hasVerdict, verdictQueryOptions } from '@/features/results/api/get-verdict';
import { publicReportQueryOptions } from '@/features/reports/api/public-report';

/**
 * What a page will ask the API for, asked as the navigation starts (the routes' loaders call
 * these and return at once, never waiting): the requests go out in parallel, while the page's
 * code and Plotly load, instead of one after another as each component mounts and finds it
 * needs them (/auth/me, then the comparison, then its results, then its verdict). The
 * components then find the answers in the query cache. On a first load the HTML's first script
 * has sent the same requests even earlier (src/app/first-load/pages.ts, whose table must match
 * these loaders: first-load/start-first-load.test.tsx checks), and the API client adopts its answers.
 */

/** The signed-in user: every page of the app's layout needs it first. */
export function prefetchSignedInPage(queryClient: QueryClient): null {
  void queryClient.prefetchQuery(meQueryOptions());
  return null;
}

/**
 * A comparison page: the comparison, its results and, once the comparison says it has one, its
 * verdict (asked after the comparison, the quicker of the two to answer).
 */
export function prefetchComparisonPage(queryClient: QueryClient, id: string): null {
  void queryClient.fetchQuery(comparisonQueryOptions(id)).then(
    (comparison) => {
      if (hasVerdict(comparison.status)) void queryClient.prefetchQuery(verdictQueryOptions(id, true));
    },
    () => undefined, // the page shows the error when it asks again
  );
  void queryClient.prefetchQuery(resultsQueryOptions(id, false));
  return null;
}

/** A shared report (no session): one document. */
export function prefetchPublicReport(queryClient: QueryClient, token: string): null {
  void queryClient.prefetchQuery(publicReportQueryOptions(token));
  return null;
}
