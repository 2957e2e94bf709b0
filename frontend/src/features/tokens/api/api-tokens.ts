import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ApiToken, ApiTokenCreated, ApiTokenRequest } from '@/lib/api-types';

const tokensKey = ['api-tokens'] as const;

/** The organization's API tokens (owners and admins): never their secrets. */
export function getApiTokens(): Promise<ApiToken[]> {
  return unwrap(api.GET('/api/v1/tokens'));
}

export function useApiTokens(enabled: boolean) {
  return useQuery({ queryKey: tokensKey, queryFn: getApiTokens, enabled });
}

/** The response carries the secret: the only time it leaves the server. */
export function createApiToken(body: ApiTokenRequest): Promise<ApiTokenCreated> {
  return unwrap(api.POST('/api/v1/tokens', { body }));
}

export function revokeApiToken(id: string): Promise<ApiToken> {
  return unwrap(api.POST('/api/v1/tokens/{token_id}/revoke', { params: { path: { token_id: id } } }));
}

function useTokenMutation<T, R>(mutationFn: (variables: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => void queryClient.invalidateQueries({ queryKey: tokensKey }) });
}

export const useCreateApiToken = () => useTokenMutation(createApiToken);
export const useRevokeApiToken = () => useTokenMutation(revokeApiToken);
