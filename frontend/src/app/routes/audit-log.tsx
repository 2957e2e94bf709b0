import { AuditLogPage } from '@/features/audit/components/audit-log-page';

export function AuditLogRoute() {
  return <AuditLogPage />;
}
