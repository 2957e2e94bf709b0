import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonDetail } from '@/lib/api-types';
import { comparisonQueryKey } from './get-comparison';

export function cancelComparison(id: string): Promise<ComparisonDetail> {
  return unwrap(api.POST('/api/v1/comparisons/{comparison_id}/cancel', { params: { path: { comparison_id: id } } }));
}

export function useCancelComparison() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelComparison,
    onSuccess: (detail) => {
      queryClient.setQueryData(comparisonQueryKey(detail.id), detail);
      void queryClient.invalidateQueries({ queryKey: ['comparisons', 'list'] });
    },
  });
}
