import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { PublicReport } from '../types';

export const publicReportQueryKey = (token: string) => ['public-report', token] as const;

export function getPublicReport(token: string): Promise<PublicReport> {
  return unwrap(api.GET('/api/v1/public/reports/{token}', { params: { path: { token } } }));
}

/** A shared report, read without a session; it does not change while open (the analysis is stored). */
export const publicReportQueryOptions = (token: string) =>
  queryOptions({ queryKey: publicReportQueryKey(token), queryFn: () => getPublicReport(token), staleTime: Infinity });

export function usePublicReport(token: string) {
  return useQuery(publicReportQueryOptions(token));
}

export const publicReportDownloads = (token: string) => ({
  html: `/api/v1/public/reports/${encodeURIComponent(token)}/report.html`,
  pdf: `/api/v1/public/reports/${encodeURIComponent(token)}/report.pdf`,
});
