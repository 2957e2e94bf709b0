import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import { meQueryKey } from './get-me';

export async function logout(): Promise<void> {
  await unwrap(api.POST('/api/v1/auth/logout'));
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      // Nothing cached belongs to an anonymous session.
      queryClient.clear();
      queryClient.setQueryData(meQueryKey, null);
    },
  });
}
