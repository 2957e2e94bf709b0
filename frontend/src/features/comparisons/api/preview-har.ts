import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { HarPreview } from '@/lib/api-types';

export type PreviewInput = { har: Record<string, unknown>; repetitions: number; origin?: string };

export function previewHar({ har, repetitions, origin }: PreviewInput): Promise<HarPreview> {
  const query = origin ? { repetitions, origin } : { repetitions };
  return unwrap(api.POST('/api/v1/har-import', { body: har, params: { query } }));
}

export function usePreviewHar() {
  return useMutation({ mutationFn: previewHar });
}
