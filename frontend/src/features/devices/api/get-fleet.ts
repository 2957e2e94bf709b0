import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { FleetRunnerPage, Pool } from '@/lib/api-types';
import { FLEET_PAGE_SIZE, FLEET_POLL_MS } from './get-devices';

export function getPools(): Promise<Pool[]> {
  return unwrap(api.GET('/api/v1/pools'));
}

export const poolsQueryOptions = () =>
  queryOptions({ queryKey: ['pools'], queryFn: getPools, refetchInterval: FLEET_POLL_MS });

export function usePools() {
  return useQuery(poolsQueryOptions());
}

export function getRunners(): Promise<FleetRunnerPage> {
  return unwrap(api.GET('/api/v1/runners', { params: { query: { page_size: FLEET_PAGE_SIZE } } }));
}

export function useRunners() {
  return useQuery({ queryKey: ['runners'], queryFn: getRunners, refetchInterval: FLEET_POLL_MS });
}
