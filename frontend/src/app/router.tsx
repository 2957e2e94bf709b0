import { useState } from 'react';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { AppLayout } from './routes/app-layout';
import { LoginRoute } from './routes/login';
import {
  AcceptInvitationRoute,
  ForgotPasswordRoute,
  ResetPasswordRoute,
  SignupRoute,
} from './routes/signed-out-pages';
import { MembersRoute } from './routes/members';
import { ComparisonsRoute } from './routes/comparisons';
import { NewComparisonRoute } from './routes/new-comparison';
import { HarReplayRoute } from './routes/har-replay';
import { ComparisonRoute } from './routes/comparison';
import { DevicesRoute } from './routes/devices';
import { OrganizationRoute } from './routes/organization';
import { NotFoundRoute } from './routes/not-found';
import { HomeRoute } from './routes/home';
import { TrendsRoute } from './routes/trends';
import { PublicReportRoute } from './routes/public-report';
import { SharesRoute } from './routes/shares';
import { SettingsLayout } from './routes/settings-layout';
import { NetworkProfilesRoute } from './routes/network-profiles';
import { TokensRoute } from './routes/tokens';
import { WebhooksRoute } from './routes/webhooks';
import { UsageRoute } from './routes/usage';
import { AuditLogRoute } from './routes/audit-log';
import { PreloadPlotly } from '@/features/results/components/plot';

// Pages with charts start loading Plotly (its own ~4.7 MB chunk) as they mount, in parallel with their
// data (PreloadPlotly); no other page ships it.
export const routes: RouteObject[] = [
  { path: '/login', element: <LoginRoute /> },
  { path: '/signup', element: <SignupRoute /> },
  { path: '/forgot-password', element: <ForgotPasswordRoute /> },
  { path: '/reset-password/:uid/:token', element: <ResetPasswordRoute /> },
  // The emailed invitation link: for a signed-in user or a new one.
  { path: '/invitations/:token', element: <AcceptInvitationRoute /> },
  // A shared report: no sign-in, outside the app's layout.
  { path: '/r/:token', element: <PreloadPlotly><PublicReportRoute /></PreloadPlotly> },
  {
    element: <AppLayout />,
    children: [
      { index: true, element: <HomeRoute /> },
      { path: '/trends', element: <PreloadPlotly><TrendsRoute /></PreloadPlotly> },
      { path: '/comparisons', element: <ComparisonsRoute /> },
      { path: '/comparisons/new', element: <NewComparisonRoute /> },
      { path: '/comparisons/new/har', element: <HarReplayRoute /> },
      { path: '/comparisons/:id', element: <PreloadPlotly><ComparisonRoute /></PreloadPlotly> },
      { path: '/devices', element: <DevicesRoute /> },
      {
        element: <SettingsLayout />,
        children: [
          { path: '/organization', element: <OrganizationRoute /> },
          { path: '/members', element: <MembersRoute /> },
          { path: '/network-profiles', element: <NetworkProfilesRoute /> },
          { path: '/tokens', element: <TokensRoute /> },
          { path: '/webhooks', element: <WebhooksRoute /> },
          { path: '/shares', element: <SharesRoute /> },
          { path: '/usage', element: <UsageRoute /> },
          { path: '/audit-log', element: <AuditLogRoute /> },
        ],
      },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
