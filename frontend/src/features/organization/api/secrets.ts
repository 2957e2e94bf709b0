import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Secret, SecretCreateRequest } from '@/lib/api-types';

const secretsKey = ['secrets'] as const;

/** The organization's secrets: names and history only; the API never returns a value. */
export function getSecrets(): Promise<Secret[]> {
  return unwrap(api.GET('/api/v1/secrets'));
}

export function useSecrets() {
  return useQuery({ queryKey: secretsKey, queryFn: getSecrets });
}

export function createSecret(body: SecretCreateRequest): Promise<Secret> {
  return unwrap(api.POST('/api/v1/secrets', { body }));
}

export function replaceSecret(name: string, value: string): Promise<Secret> {
  return unwrap(api.PUT('/api/v1/secrets/{name}', { params: { path: { name } }, body: { value } }));
}

export async function deleteSecret(name: string): Promise<void> {
  await unwrap(api.DELETE('/api/v1/secrets/{name}', { params: { path: { name } } }));
}

function useSecretMutation<T>(mutationFn: (variables: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => void queryClient.invalidateQueries({ queryKey: secretsKey }) });
}

export const useCreateSecret = () => useSecretMutation(createSecret);
export const useReplaceSecret = () =>
  useSecretMutation(({ name, value }: { name: string; value: string }) => replaceSecret(name, value));
export const useDeleteSecret = () => useSecretMutation(deleteSecret);
