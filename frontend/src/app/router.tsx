import { useState, type ComponentType } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { AppLayout } from './routes/app-layout';
import { LoginRoute } from './routes/login';
import { SettingsLayout } from './routes/settings-layout';
import { NotFoundRoute } from './routes/not-found';
import { preloadPlotly } from '@/features/results/components/plot';
import { Spinner } from '@/components/spinner';
import { prefetchComparisonPage, prefetchPublicReport, prefetchSignedInPage } from './page-data';

/**
 * A page loaded when first shown: every page but the shell, the sign-in page and "not found"
 * is its own chunk, so the comparison page or a shared report downloads and runs its own code
 * and not the spec builder's, the settings pages' or the others'. On chart pages the build
 * preloads that chunk with the HTML (src/app/first-load/pages.ts).
 * The router loads a page's module before it renders the route (the route's `lazy`): on a
 * navigation the previous page stays until then, on the first load the loading element shows.
 * (React.lazy under Suspense did the same with a spinner in between, and React holds back
 * revealing a Suspense boundary's content up to 300 ms after its fallback was shown: a third of
 * a second lost on every first load of a page.)
 */
const pageLoads: (() => Promise<unknown>)[] = [];

type LazyPage = () => Promise<{ Component: ComponentType }>;

function page<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name): LazyPage {
  pageLoads.push(load);
  return async () => ({ Component: (await load())[name] });
}

const signedOut = () => import('./routes/signed-out-pages');

// Each page's module loader, for the routes' `lazy`.
const PAGES = {
  signup: page(signedOut, 'SignupRoute'),
  forgotPassword: page(signedOut, 'ForgotPasswordRoute'),
  resetPassword: page(signedOut, 'ResetPasswordRoute'),
  acceptInvitation: page(signedOut, 'AcceptInvitationRoute'),
  publicReport: page(() => import('./routes/public-report'), 'PublicReportRoute'),
  home: page(() => import('./routes/home'), 'HomeRoute'),
  trends: page(() => import('./routes/trends'), 'TrendsRoute'),
  comparisons: page(() => import('./routes/comparisons'), 'ComparisonsRoute'),
  newComparison: page(() => import('./routes/new-comparison'), 'NewComparisonRoute'),
  harReplay: page(() => import('./routes/har-replay'), 'HarReplayRoute'),
  comparison: page(() => import('./routes/comparison'), 'ComparisonRoute'),
  devices: page(() => import('./routes/devices'), 'DevicesRoute'),
  organization: page(() => import('./routes/organization'), 'OrganizationRoute'),
  members: page(() => import('./routes/members'), 'MembersRoute'),
  networkProfiles: page(() => import('./routes/network-profiles'), 'NetworkProfilesRoute'),
  tokens: page(() => import('./routes/tokens'), 'TokensRoute'),
  webhooks: page(() => import('./routes/webhooks'), 'WebhooksRoute'),
  shares: page(() => import('./routes/shares'), 'SharesRoute'),
  usage: page(() => import('./routes/usage'), 'UsageRoute'),
  auditLog: page(() => import('./routes/audit-log'), 'AuditLogRoute'),
};

/** Shown on the first load while the page's module loads and its loaders run (they never wait). */
const LOADING = <Spinner label="Loading page" />;

/** A chart page's loader: it also starts loading Plotly (its own ~1.1 MB chunk, which no other page ships). */
const withCharts =
  <Args,>(prefetch: (args: Args) => null) =>
  (args: Args): null => {
    prefetch(args); // the requests first: they wait on the server while Plotly compiles
    preloadPlotly();
    return null;
  };

/**
 * The app's route table. Loaders ask for a page's data as the navigation starts (page-data.ts)
 * and return at once: they never hold a page back, and the page finds its answers in `queryClient`.
 * A chart page's loader also starts loading Plotly, so that it is compiled while the data is on its way.
 */
export const makeRoutes = (queryClient: QueryClient): RouteObject[] => [
  { path: '/login', element: <LoginRoute /> },
  { path: '/signup', lazy: PAGES.signup, hydrateFallbackElement: LOADING },
  { path: '/forgot-password', lazy: PAGES.forgotPassword, hydrateFallbackElement: LOADING },
  { path: '/reset-password/:uid/:token', lazy: PAGES.resetPassword, hydrateFallbackElement: LOADING },
  // The emailed invitation link: for a signed-in user or a new one.
  { path: '/invitations/:token', lazy: PAGES.acceptInvitation, hydrateFallbackElement: LOADING },
  // A shared report: no sign-in, outside the app's layout.
  {
    path: '/r/:token',
    loader: withCharts(({ params }) => prefetchPublicReport(queryClient, params.token ?? '')),
    hydrateFallbackElement: LOADING,
    lazy: PAGES.publicReport,
  },
  {
    element: <AppLayout />,
    loader: () => prefetchSignedInPage(queryClient),
    hydrateFallbackElement: LOADING,
    children: [
      { index: true, lazy: PAGES.home },
      { path: '/trends', loader: withCharts(() => null), lazy: PAGES.trends },
      { path: '/comparisons', lazy: PAGES.comparisons },
      { path: '/comparisons/new', lazy: PAGES.newComparison },
      { path: '/comparisons/new/har', lazy: PAGES.harReplay },
      {
        path: '/comparisons/:id',
        loader: withCharts(({ params }) => prefetchComparisonPage(queryClient, params.id ?? '')),
        lazy: PAGES.comparison,
      },
      { path: '/devices', lazy: PAGES.devices },
      {
        element: <SettingsLayout />,
        children: [
          { path: '/organization', lazy: PAGES.organization },
          { path: '/members', lazy: PAGES.members },
          { path: '/network-profiles', lazy: PAGES.networkProfiles },
          { path: '/tokens', lazy: PAGES.tokens },
          { path: '/webhooks', lazy: PAGES.webhooks },
          { path: '/shares', lazy: PAGES.shares },
          { path: '/usage', lazy: PAGES.usage },
          { path: '/audit-log', lazy: PAGES.auditLog },
        ],
      },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

/** Loads every page's chunk (route tests do first, so that they wait for a page, not for its module). */
export function loadAllPages(): Promise<unknown> {
  return Promise.all(pageLoads.map((load) => load()));
}

export function AppRouter() {
  const queryClient = useQueryClient();
  const [router] = useState(() => createBrowserRouter(makeRoutes(queryClient)));
  return <RouterProvider router={router} />;
}
