import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ShareLink, ShareLinkCreated, ShareLinkInput, ShareLinkPage } from '../types';

export const sharesQueryKey = ['shares'] as const;
export const comparisonSharesQueryKey = (comparisonId: string) => ['shares', 'comparison', comparisonId] as const;
export const allSharesQueryKey = (page: number) => ['shares', 'all', page] as const;

export function getComparisonShares(comparisonId: string): Promise<ShareLinkPage> {
  return unwrap(
    api.GET('/api/v1/comparisons/{comparison_id}/shares', { params: { path: { comparison_id: comparisonId } } }),
  );
}

export function useComparisonShares(comparisonId: string) {
  return useQuery(
    queryOptions({ queryKey: comparisonSharesQueryKey(comparisonId), queryFn: () => getComparisonShares(comparisonId) }),
  );
}

export function getShares(page: number): Promise<ShareLinkPage> {
  return unwrap(api.GET('/api/v1/shares', { params: { query: { page } } }));
}

export function useShares(page: number) {
  return useQuery(queryOptions({ queryKey: allSharesQueryKey(page), queryFn: () => getShares(page) }));
}

export function createShare(comparisonId: string, input: ShareLinkInput): Promise<ShareLinkCreated> {
  return unwrap(
    api.POST('/api/v1/comparisons/{comparison_id}/shares', {
      params: { path: { comparison_id: comparisonId } },
      body: input,
    }),
  );
}

export function useCreateShare(comparisonId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ShareLinkInput) => createShare(comparisonId, input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: sharesQueryKey }),
  });
}

export function revokeShare(link: Pick<ShareLink, 'id' | 'comparison'>): Promise<ShareLink> {
  return unwrap(
    api.POST('/api/v1/comparisons/{comparison_id}/shares/{share_id}/revoke', {
      params: { path: { comparison_id: link.comparison.id, share_id: link.id } },
    }),
  );
}

export function useRevokeShare() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeShare,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: sharesQueryKey }),
  });
}
