import { createElement, lazy, Suspense, useState, type ComponentType } from 'react';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { AppLayout } from './routes/app-layout';
import { LoginRoute } from './routes/login';
import { SettingsLayout } from './routes/settings-layout';
import { NotFoundRoute } from './routes/not-found';
import { PreloadPlotly } from '@/features/results/components/plot';
import { Spinner } from '@/components/spinner';

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

// Pages with charts start loading Plotly (its own ~1.1 MB chunk) as they mount, in parallel with their
// data (PreloadPlotly); no other page ships it.
export const routes: RouteObject[] = [
  { path: '/login', element: <LoginRoute /> },
  { path: '/signup', element: page(signedOut, 'SignupRoute') },
  { path: '/forgot-password', element: page(signedOut, 'ForgotPasswordRoute') },
  { path: '/reset-password/:uid/:token', element: page(signedOut, 'ResetPasswordRoute') },
  // The emailed invitation link: for a signed-in user or a new one.
  { path: '/invitations/:token', element: page(signedOut, 'AcceptInvitationRoute') },
  // A shared report: no sign-in, outside the app's layout.
  { path: '/r/:token', element: <PreloadPlotly>{page(() => import('./routes/public-report'), 'PublicReportRoute')}</PreloadPlotly> },
  {
    element: <AppLayout />,
    children: [
      { index: true, element: page(() => import('./routes/home'), 'HomeRoute') },
      { path: '/trends', element: <PreloadPlotly>{page(() => import('./routes/trends'), 'TrendsRoute')}</PreloadPlotly> },
      { path: '/comparisons', element: page(() => import('./routes/comparisons'), 'ComparisonsRoute') },
      { path: '/comparisons/new', element: page(() => import('./routes/new-comparison'), 'NewComparisonRoute') },
      { path: '/comparisons/new/har', element: page(() => import('./routes/har-replay'), 'HarReplayRoute') },
      { path: '/comparisons/:id', element: <PreloadPlotly>{page(() => import('./routes/comparison'), 'ComparisonRoute')}</PreloadPlotly> },
      { path: '/devices', element: page(() => import('./routes/devices'), 'DevicesRoute') },
      {
        element: <SettingsLayout />,
        children: [
          { path: '/organization', element: page(() => import('./routes/organization'), 'OrganizationRoute') },
          { path: '/members', element: page(() => import('./routes/members'), 'MembersRoute') },
          { path: '/network-profiles', element: page(() => import('./routes/network-profiles'), 'NetworkProfilesRoute') },
          { path: '/tokens', element: page(() => import('./routes/tokens'), 'TokensRoute') },
          { path: '/webhooks', element: page(() => import('./routes/webhooks'), 'WebhooksRoute') },
          { path: '/shares', element: page(() => import('./routes/shares'), 'SharesRoute') },
          { path: '/usage', element: page(() => import('./routes/usage'), 'UsageRoute') },
          { path: '/audit-log', element: page(() => import('./routes/audit-log'), 'AuditLogRoute') },
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
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
