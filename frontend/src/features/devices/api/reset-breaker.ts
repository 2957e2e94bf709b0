import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { FleetRunner } from '@/lib/api-types';

export function resetBreaker(id: string) {
  return unwrap(api.POST('/api/v1/runners/{runner_id}/reset-breaker', { params: { path: { runner_id: id } } }));
}

export function useResetBreaker() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runner: Pick<FleetRunner, 'id'>) => resetBreaker(runner.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['runners'] });
      void queryClient.invalidateQueries({ queryKey: ['devices'] });
    },
  });
}
