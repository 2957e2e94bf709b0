import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonDetail, ComparisonSpecRequest } from '@/lib/api-types';

export function submitReplay(spec: ComparisonSpecRequest): Promise<ComparisonDetail> {
  return unwrap(api.POST('/api/v1/comparisons', { body: spec }));
}

export function useSubmitReplay() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: submitReplay,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['comparisons', 'list'] }),
  });
}
