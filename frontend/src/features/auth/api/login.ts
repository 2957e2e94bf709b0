import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { LoginRequest, Me } from '@/lib/api-types';
import { meQueryKey } from './get-me';

export function login(credentials: LoginRequest): Promise<Me> {
  return unwrap(api.POST('/api/v1/auth/login', { body: credentials }));
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (me) => {
      queryClient.setQueryData(meQueryKey, me);
    },
  });
}
