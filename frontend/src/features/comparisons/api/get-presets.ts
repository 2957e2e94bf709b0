import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Preset } from '@/lib/api-types';

export function getPresets(): Promise<Preset[]> {
  return unwrap(api.GET('/api/v1/presets'));
}

export const presetsQueryOptions = () =>
  queryOptions({ queryKey: ['presets'], queryFn: getPresets, staleTime: Infinity });

export function usePresets() {
  return useQuery(presetsQueryOptions());
}
