import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { AuditAction, AuditEventPage } from '@/lib/api-types';

export type AuditFilters = { action?: AuditAction; since?: string; until?: string; actor?: number };

export function getAuditEvents(filters: AuditFilters, page: number): Promise<AuditEventPage> {
  // Only the filters set: an unset one must not travel as "undefined".
  const query = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as AuditFilters;
  return unwrap(api.GET('/api/v1/audit-events', { params: { query: { ...query, page } } }));
}

export function useAuditEvents(filters: AuditFilters, page: number) {
  return useQuery({
    queryKey: ['audit-events', filters, page],
    queryFn: () => getAuditEvents(filters, page),
    // Paging and filtering keep the table in place until the next page arrives.
    placeholderData: keepPreviousData,
  });
}
