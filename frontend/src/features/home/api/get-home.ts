import { queryOptions, useQuery } from '@tanstack/react-query';
import type { components } from '@/api/schema';
import { api, unwrap } from '@/lib/api-client';

// GET /api/v1/home's shapes, from the generated schema.
export type Home = components['schemas']['Home'];
export type HomeRecent = components['schemas']['HomeRecentComparison'];
export type HomeInFlight = components['schemas']['HomeComparison'];
export type HomeSparkline = components['schemas']['HomeSparkline'];
export type HomeFarm = components['schemas']['HomeFarm'];

/** Live progress while anything runs; the farm's states refresh slower otherwise. */
export const HOME_POLL_MS = 3_000;
export const HOME_IDLE_POLL_MS = 15_000;

export function getHome(): Promise<Home> {
  return unwrap(api.GET('/api/v1/home'));
}

export const homeQueryOptions = () =>
  queryOptions({
    queryKey: ['home'],
    queryFn: getHome,
    refetchInterval: (query) => {
      if (query.state.status === 'error') return false;
      return query.state.data && query.state.data.in_flight.length > 0 ? HOME_POLL_MS : HOME_IDLE_POLL_MS;
    },
  });

export function useHome() {
  return useQuery(homeQueryOptions());
}
