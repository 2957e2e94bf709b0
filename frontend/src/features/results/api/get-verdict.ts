import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { ComparisonVerdict } from '@/lib/api-types';

export function getVerdict(id: string): Promise<ComparisonVerdict> {
  return unwrap(api.GET('/api/v1/comparisons/{comparison_id}/verdict', { params: { path: { comparison_id: id } } }));
}

export const verdictQueryKey = (id: string) => ['comparisons', 'verdict', id] as const;

/**
 * Whether a comparison in this status has a verdict: a finished one, and a cancelled one, whose
 * verdict is partial (it covers the blocks stored before the cancel, and says so). Before that the
 * endpoint answers 409.
 */
export const hasVerdict = (status: string): boolean => status === 'finished' || status === 'cancelled';

/**
 * The CI gate's verdict of a comparison, as the CLI reads it: the dashboard shows the server's
 * overall outcome, never its own. The query waits until the comparison `hasVerdict`.
 */
export const verdictQueryOptions = (id: string, judged: boolean) =>
  queryOptions({ queryKey: verdictQueryKey(id), queryFn: () => getVerdict(id), enabled: judged });

export function useVerdict(id: string, judged: boolean) {
  return useQuery(verdictQueryOptions(id, judged));
}

/**
 * The verdict of a finished comparison against another baseline: a comparison id,
 * `branch:NAME` (the latest finished comparison of the same spec on that branch) or
 * `tag:KEY=VALUE`. Each arm is judged against the same arm of that comparison.
 */
export function getBaselineVerdict(id: string, baseline: string): Promise<ComparisonVerdict> {
  return unwrap(
    api.GET('/api/v1/comparisons/{comparison_id}/verdict', {
      params: { path: { comparison_id: id }, query: { baseline } },
    }),
  );
}

export function useBaselineVerdict(id: string, baseline: string | null) {
  return useQuery({
    queryKey: [...verdictQueryKey(id), 'baseline', baseline] as const,
    queryFn: () => getBaselineVerdict(id, baseline as string),
    enabled: baseline !== null,
  });
}
