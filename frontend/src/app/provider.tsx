import { useState, type ReactNode } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { makeQueryClient } from '@/lib/react-query';

type AppProviderProps = { children: ReactNode; queryClient?: QueryClient };

export function AppProvider({ children, queryClient }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? makeQueryClient());
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
