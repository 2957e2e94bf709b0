import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonResults } from '@/lib/api-types';

export const RESULTS_POLL_MS = 2_000;

export function getResults(id: string): Promise<ComparisonResults> {
  return unwrap(api.GET('/api/v1/comparisons/{comparison_id}/results', { params: { path: { comparison_id: id } } }));
}

/**
 * Results of one comparison. `live` (the comparison is not terminal yet) keeps polling so
 * partial groups appear as blocks land; once analysis is finished the answer is final.
 */
export const resultsQueryKey = (id: string) => ['comparisons', 'results', id] as const;

export const resultsQueryOptions = (id: string, live: boolean) =>
  queryOptions({
    queryKey: resultsQueryKey(id),
    queryFn: () => getResults(id),
    refetchInterval: (query) => (live && query.state.status !== 'error' ? RESULTS_POLL_MS : false),
  });

export function useResults(id: string, live: boolean) {
  return useQuery(resultsQueryOptions(id, live));
}
