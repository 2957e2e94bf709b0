import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { isTerminal, statusOf, type ComparisonDetail } from '@/lib/api-types';

export const COMPARISON_POLL_MS = 2_000;

export function getComparison(id: string): Promise<ComparisonDetail> {
  return unwrap(api.GET('/api/v1/comparisons/{comparison_id}', { params: { path: { comparison_id: id } } }));
}

export const comparisonQueryKey = (id: string) => ['comparisons', 'detail', id] as const;

export const comparisonQueryOptions = (id: string) =>
  queryOptions({
    queryKey: comparisonQueryKey(id),
    queryFn: () => getComparison(id),
    refetchInterval: (query) => {
      // A 404 or a 403 will not go away by asking again.
      if (query.state.status === 'error') return false;
      const data = query.state.data;
      return data && isTerminal(statusOf(data)) ? false : COMPARISON_POLL_MS;
    },
  });

export function useComparison(id: string) {
  return useQuery(comparisonQueryOptions(id));
}
