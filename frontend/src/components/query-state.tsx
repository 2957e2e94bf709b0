import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '@/lib/api-client';
import { Spinner } from './spinner';

/** Why a query failed, said the way every page says it. */
export function LoadError({ what, error }: { what: string; error: Error }) {
  return (
    <p role="alert" className="alert alert-error">
      Could not load {what}: {error.message}
    </p>
  );
}

/**
 * The ladder every list shows while it loads — spinner, then the error, then the empty
 * state, then the content — said one way. `what` names the thing in a sentence
 * ("API tokens", "the members"): "Loading API tokens…", "Could not load API tokens: …".
 * `forbidden` is said instead when the server refuses this user (403): who may see it.
 */
export function QueryState<T>({
  query,
  what,
  isEmpty,
  empty,
  forbidden,
  children,
}: {
  query: UseQueryResult<T, Error>;
  what: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  forbidden?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Spinner label={`Loading ${what}`} />;
  if (query.isError) {
    if (forbidden && query.error instanceof ApiError && query.error.status === 403) {
      return (
        <p role="alert" className="alert alert-error">
          {forbidden}
        </p>
      );
    }
    return <LoadError what={what} error={query.error} />;
  }
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
