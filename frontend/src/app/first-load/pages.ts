/**
 * The pages whose first load starts before the app's own bundle has run: the chart pages. On
 * these, the HTML's first script (start-first-load.ts, built by vite.first-load.ts) preloads the
 * page's chunks and Plotly's, and sends the API requests the route's loader will make
 * (src/app/page-data.ts), so that neither waits for the app's bundle to download, compile, create
 * its router and run the loaders (a quarter to half a second on the comparison page). The app
 * adopts those answers (src/lib/early-responses.ts) instead of asking again.
 * No imports: the build reads this table (vite.first-load.ts). pages.test.tsx checks it lists
 * exactly the routes whose loaders start Plotly.
 */
export type FirstLoadPage = {
  /** A regular expression on `location.pathname`; its groups fill `$1`… in the requests. */
  path: string;
  /** The route's lazily loaded page module (src/app/router.tsx): its chunks are preloaded. */
  page: string;
  /** The API GETs the route's loader makes at once (src/app/page-data.ts). */
  requests: string[];
  /** A GET the loader makes once another has answered with a `status` among `statuses`. */
  followUp?: { after: string; statuses: string[]; request: string };
};

const COMPARISON = '/api/v1/comparisons/$1';

export const FIRST_LOAD_PAGES: FirstLoadPage[] = [
  {
    path: String.raw`^/comparisons/(?!new(?:/|$))([^/]+)/?$`,
    page: 'src/app/routes/comparison.tsx',
    requests: ['/api/v1/auth/me', COMPARISON, `${COMPARISON}/results`],
    // The verdict once the comparison has one (get-verdict.ts, hasVerdict); before that it answers 409.
    followUp: { after: COMPARISON, statuses: ['finished', 'cancelled'], request: `${COMPARISON}/verdict` },
  },
  {
    path: String.raw`^/r/([^/]+)/?$`,
    page: 'src/app/routes/public-report.tsx',
    requests: ['/api/v1/public/reports/$1'],
  },
  {
    // Its data depends on the filters the page reads from the URL: only its code starts early.
    path: String.raw`^/trends/?$`,
    page: 'src/app/routes/trends.tsx',
    requests: ['/api/v1/auth/me'],
  },
];
