import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '@/lib/api-client';
import type { Me } from '@/lib/api-types';

/** The signed-in user, or null when the session is anonymous (401/403). */
export async function getMe(): Promise<Me | null> {
  try {
    return await unwrap(api.GET('/api/v1/auth/me'));
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

export const meQueryKey = ['auth', 'me'] as const;

export const meQueryOptions = () =>
  queryOptions({ queryKey: meQueryKey, queryFn: getMe, staleTime: 60_000 });

export function useUser() {
  return useQuery(meQueryOptions());
}
