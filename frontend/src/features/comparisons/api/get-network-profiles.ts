import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { NetworkProfile } from '@/lib/api-types';

/** The built-in network profiles and the organization's own, as a spec may name them. */
export function getNetworkProfiles(): Promise<NetworkProfile[]> {
  return unwrap(api.GET('/api/v1/network-profiles'));
}

export const networkProfilesQueryOptions = () =>
  queryOptions({ queryKey: ['network-profiles'], queryFn: getNetworkProfiles, staleTime: 60_000 });

export function useNetworkProfiles() {
  return useQuery(networkProfilesQueryOptions());
}
