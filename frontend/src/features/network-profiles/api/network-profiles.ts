import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { NetworkProfile, NetworkProfileBounds, NetworkProfileRequest } from '@/lib/api-types';

// The builder lists the same profiles under this key: creating one here refreshes it there.
const profilesKey = ['network-profiles'] as const;

/** The built-in presets and the organization's own profiles. */
export function getNetworkProfiles(): Promise<NetworkProfile[]> {
  return unwrap(api.GET('/api/v1/network-profiles'));
}

export function useNetworkProfiles() {
  return useQuery({ queryKey: profilesKey, queryFn: getNetworkProfiles, staleTime: 60_000 });
}

/** Each spec field's type, minimum, maximum and default, as the server validates them. */
export function getNetworkProfileBounds(): Promise<NetworkProfileBounds> {
  return unwrap(api.GET('/api/v1/network-profiles/bounds'));
}

export function useNetworkProfileBounds() {
  return useQuery({ queryKey: [...profilesKey, 'bounds'], queryFn: getNetworkProfileBounds, staleTime: Infinity });
}

export function createNetworkProfile(body: NetworkProfileRequest): Promise<NetworkProfile> {
  return unwrap(api.POST('/api/v1/network-profiles', { body }));
}

export function useCreateNetworkProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createNetworkProfile,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profilesKey, exact: true }),
  });
}
