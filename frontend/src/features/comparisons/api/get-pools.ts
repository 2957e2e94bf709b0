import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Pool } from '@/lib/api-types';

/** The device pools a comparison may run in: the organization's own and the hosted ones. */
export function getPools(): Promise<Pool[]> {
  return unwrap(api.GET('/api/v1/pools'));
}

export const poolsQueryOptions = () => queryOptions({ queryKey: ['pools'], queryFn: getPools, staleTime: 30_000 });

export function usePools() {
  return useQuery(poolsQueryOptions());
}
