import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Usage } from '@/lib/api-types';

export const USAGE_MONTHS = 12;

export function getUsage(months: number): Promise<Usage> {
  return unwrap(api.GET('/api/v1/usage', { params: { query: { months } } }));
}

export function useUsage(months: number = USAGE_MONTHS) {
  return useQuery({ queryKey: ['usage', months], queryFn: () => getUsage(months) });
}
