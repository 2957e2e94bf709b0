import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonDetail, ComparisonSpecRequest } from '@/lib/api-types';
import { comparisonQueryKey } from './get-comparison';

export function createComparison(spec: ComparisonSpecRequest): Promise<ComparisonDetail> {
  return unwrap(api.POST('/api/v1/comparisons', { body: spec }));
}

export function useCreateComparison() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createComparison,
    onSuccess: (created) => {
      queryClient.setQueryData(comparisonQueryKey(created.id), created);
      void queryClient.invalidateQueries({ queryKey: ['comparisons', 'list'] });
    },
  });
}
