import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { EnrollmentToken, EnrollmentTokenCreated, EnrollmentTokenRequest } from '@/lib/api-types';

const tokensKey = (pool: string) => ['pools', pool, 'enrollment-tokens'] as const;

export function getEnrollmentTokens(pool: string): Promise<EnrollmentToken[]> {
  return unwrap(api.GET('/api/v1/pools/{slug}/enrollment-tokens', { params: { path: { slug: pool } } }));
}

export function useEnrollmentTokens(pool: string, enabled: boolean) {
  return useQuery({ queryKey: tokensKey(pool), queryFn: () => getEnrollmentTokens(pool), enabled });
}

export function createEnrollmentToken(pool: string, body: EnrollmentTokenRequest): Promise<EnrollmentTokenCreated> {
  return unwrap(api.POST('/api/v1/pools/{slug}/enrollment-tokens', { params: { path: { slug: pool } }, body }));
}

export function useCreateEnrollmentToken(pool: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: EnrollmentTokenRequest) => createEnrollmentToken(pool, body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tokensKey(pool) }),
  });
}

export function revokeEnrollmentToken(pool: string, id: string): Promise<EnrollmentToken> {
  return unwrap(
    api.POST('/api/v1/pools/{slug}/enrollment-tokens/{token_id}/revoke', {
      params: { path: { slug: pool, token_id: id } },
    }),
  );
}

export function useRevokeEnrollmentToken(pool: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => revokeEnrollmentToken(pool, id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tokensKey(pool) }),
  });
}
