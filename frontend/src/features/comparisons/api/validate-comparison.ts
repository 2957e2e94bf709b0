import { useEffect, useState } from 'react';
import { api, ApiError, unwrap } from '@/lib/api-client';
import type { components } from '@/api/schema';
import type { ComparisonSpecRequest } from '@/lib/api-types';
import { flattenFieldErrors, type FieldError } from '@/lib/field-errors';

export type ComparisonValidation = components['schemas']['ComparisonValidation'];
export type ComparisonEstimate = components['schemas']['ComparisonEstimate'];
export type SpecWarning = components['schemas']['SpecWarning'];

/** The server's dry run of create: the normalized spec and its estimate, or a 400 field map. */
export function validateComparison(spec: ComparisonSpecRequest, signal?: AbortSignal): Promise<ComparisonValidation> {
  return unwrap(api.POST('/api/v1/comparisons/validate', { body: spec, signal }));
}

export const VALIDATE_DEBOUNCE_MS = 400;

export type LiveValidation =
  | { state: 'idle' }
  | { state: 'checking' }
  | { state: 'valid'; estimate: ComparisonEstimate; warnings: SpecWarning[] }
  | { state: 'invalid'; errors: FieldError[] };

/**
 * Validates the draft as the user edits it: `clientErrors` (what the browser already knows)
 * win; otherwise the spec goes to POST /comparisons/validate once typing pauses, and only
 * the answer to the latest spec is kept.
 */
export function useLiveValidation(spec: ComparisonSpecRequest | null, clientErrors: FieldError[]): LiveValidation {
  const [result, setResult] = useState<LiveValidation>({ state: 'idle' });
  const key = spec ? JSON.stringify(spec) : null;
  const clientKey = JSON.stringify(clientErrors);
  useEffect(() => {
    if (key === null) {
      setResult({ state: 'invalid', errors: JSON.parse(clientKey) as FieldError[] });
      return undefined;
    }
    const controller = new AbortController();
    setResult((current) => (current.state === 'idle' || current.state === 'checking' ? current : { state: 'checking' }));
    const timer = setTimeout(() => {
      setResult((current) => (current.state === 'checking' ? current : { state: 'checking' }));
      validateComparison(JSON.parse(key) as ComparisonSpecRequest, controller.signal).then(
        (answer) => setResult({ state: 'valid', estimate: answer.estimate, warnings: answer.warnings }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          const errors =
            error instanceof ApiError && error.status === 400
              ? flattenFieldErrors(error.body)
              : [{ path: '', message: `Could not check the spec: ${error instanceof Error ? error.message : String(error)}` }];
          setResult({ state: 'invalid', errors });
        },
      );
    }, VALIDATE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key, clientKey]);
  return result;
}
