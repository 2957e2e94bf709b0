import { QueryClient, type DefaultOptions } from '@tanstack/react-query';
import { ApiError } from './api-client';

export const queryDefaults: DefaultOptions = {
  queries: {
    refetchOnWindowFocus: false,
    staleTime: 5_000,
    // A 4xx will not change on retry; network hiccups and 5xx get two more tries.
    retry: (failureCount, error) =>
      !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 2,
  },
  mutations: { retry: false },
};

export function makeQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: queryDefaults });
}
