import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonPage } from '@/lib/api-types';

/** The organization's finished comparisons, newest first (the first page): what a comparison can be judged against. */
export function getBaselineCandidates(): Promise<ComparisonPage> {
  return unwrap(api.GET('/api/v1/comparisons', { params: { query: { status: 'finished' } } }));
}

export function useBaselineCandidates(enabled: boolean) {
  return useQuery({ queryKey: ['comparisons', 'list', 'finished'] as const, queryFn: getBaselineCandidates, enabled });
}
