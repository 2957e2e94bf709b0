import { createElement, lazy, Suspense, useState, type ComponentType } from 'react';
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
 * preloads that chunk with the HTML (vite.config.ts, preloadChartPages).
 */
const pageLoads: (() => Promise<unknown>)[] = [];

function page<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) {
  let loaded: ComponentType | undefined;
  const loadPage = () => load().then((module): ComponentType => (loaded = module[name]));
  pageLoads.push(loadPage);
  const Lazy = lazy<ComponentType>(() => loadPage().then((component) => ({ default: component })));
  // Once its chunk has run, a page renders at once (React.lazy would suspend for a tick on every
  // new mount, and a navigation, being a transition, keeps the previous page until it resolves).
  const Page = () => (loaded ? createElement(loaded) : <Lazy />);
  return (
    <Suspense fallback={<Spinner label="Loading page" />}>
      <Page />
    </Suspense>
  );
}

const signedOut = () => import('./routes/signed-out-pages');

// Each page's element, made once for the module, however many route tables are made from them.
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

/** Shown while a route's loader runs on the first load (for a tick: loaders never wait). */
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
  { path: '/signup', element: PAGES.signup },
  { path: '/forgot-password', element: PAGES.forgotPassword },
  { path: '/reset-password/:uid/:token', element: PAGES.resetPassword },
  // The emailed invitation link: for a signed-in user or a new one.
  { path: '/invitations/:token', element: PAGES.acceptInvitation },
  // A shared report: no sign-in, outside the app's layout.
  {
    path: '/r/:token',
    loader: withCharts(({ params }) => prefetchPublicReport(queryClient, params.token ?? '')),
    hydrateFallbackElement: LOADING,
    element: PAGES.publicReport,
  },
  {
    element: <AppLayout />,
    loader: () => prefetchSignedInPage(queryClient),
    hydrateFallbackElement: LOADING,
    children: [
      { index: true, element: PAGES.home },
      { path: '/trends', loader: withCharts(() => null), element: PAGES.trends },
      { path: '/comparisons', element: PAGES.comparisons },
      { path: '/comparisons/new', element: PAGES.newComparison },
      { path: '/comparisons/new/har', element: PAGES.harReplay },
      {
        path: '/comparisons/:id',
        loader: withCharts(({ params }) => prefetchComparisonPage(queryClient, params.id ?? '')),
        element: PAGES.comparison,
      },
      { path: '/devices', element: PAGES.devices },
      {
        element: <SettingsLayout />,
        children: [
          { path: '/organization', element: PAGES.organization },
          { path: '/members', element: PAGES.members },
          { path: '/network-profiles', element: PAGES.networkProfiles },
          { path: '/tokens', element: PAGES.tokens },
          { path: '/webhooks', element: PAGES.webhooks },
          { path: '/shares', element: PAGES.shares },
          { path: '/usage', element: PAGES.usage },
          { path: '/audit-log', element: PAGES.auditLog },
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
