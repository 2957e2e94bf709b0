import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { components, paths } from '@/api/schema';
import { api, unwrap } from '@/lib/api-client';

// The trend's shapes, from the generated schema (GET /api/v1/trends, /trends/options).
export type Trend = components['schemas']['Trend'];
export type TrendPoint = components['schemas']['TrendPoint'];
export type TrendOptions = components['schemas']['TrendOptions'];
export type TrendQuery = paths['/api/v1/trends']['get']['parameters']['query'];
export type TrendVerdict = NonNullable<TrendPoint['verdict']>;

export function getTrend(query: TrendQuery): Promise<Trend> {
  return unwrap(api.GET('/api/v1/trends', { params: { query } }));
}

export const trendQueryOptions = (query: TrendQuery) =>
  queryOptions({
    queryKey: ['trends', 'points', query],
    queryFn: () => getTrend(query),
    placeholderData: keepPreviousData,
  });

export function useTrend(query: TrendQuery | null) {
  return useQuery({ ...trendQueryOptions(query ?? { arm: '' }), enabled: query !== null });
}

export function getTrendOptions(branch: string | undefined): Promise<TrendOptions> {
  return unwrap(api.GET('/api/v1/trends/options', { params: { query: branch ? { branch } : {} } }));
}

export function useTrendOptions(branch: string | undefined) {
  return useQuery({
    queryKey: ['trends', 'options', branch ?? null],
    queryFn: () => getTrendOptions(branch),
    placeholderData: keepPreviousData,
  });
}

/** The same trend as CSV (GET /api/v1/trends.csv): a plain link, so the browser downloads it. */
export function trendCsvUrl(query: TrendQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  return `/api/v1/trends.csv?${params.toString()}`;
}
