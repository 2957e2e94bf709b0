import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { isTerminal, statusOf, type ComparisonPage } from '@/lib/api-types';

export function getComparisons(page: number): Promise<ComparisonPage> {
  return unwrap(api.GET('/api/v1/comparisons', { params: { query: { page } } }));
}

export const comparisonsQueryOptions = (page: number) =>
  queryOptions({
    queryKey: ['comparisons', 'list', { page }],
    queryFn: () => getComparisons(page),
    placeholderData: keepPreviousData,
    // Keep the progress bars moving while anything on the page is still in flight.
    refetchInterval: (query) =>
      query.state.data?.results.some((comparison) => !isTerminal(statusOf(comparison))) ? 5_000 : false,
  });

export function useComparisons(page: number) {
  return useQuery(comparisonsQueryOptions(page));
}
