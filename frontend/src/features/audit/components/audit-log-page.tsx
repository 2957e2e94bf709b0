import { useId, useState, type FormEvent } from 'react';
import { DataTable } from '@/components/data-table';
import { FieldMessages, fieldMessages } from '@/components/field-messages';
import { PageHeader } from '@/components/page-header';
import { Pager } from '@/components/pager';
import { QueryState } from '@/components/query-state';
import { ApiError } from '@/lib/api-client';
import { AUDIT_ACTIONS, type AuditAction, type AuditEvent } from '@/lib/api-types';
import { flattenFieldErrors } from '@/lib/field-errors';
import { formatDateTime } from '@/utils/format';
import { useAuditEvents, type AuditFilters } from '../api/audit-events';

const ACTION_LABELS: Record<AuditAction, string> = {
  'member.invited': 'Member invited',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'api_token.created': 'API token created',
  'api_token.revoked': 'API token revoked',
  'share_link.created': 'Share link created',
  'share_link.revoked': 'Share link revoked',
  'comparison.cancelled': 'Comparison cancelled',
  'device.quarantine_released': 'Device released from quarantine',
  'runner.breaker_reset': 'Runner breaker reset',
  'webhook.created': 'Webhook created',
  'webhook.updated': 'Webhook changed',
  'webhook.deleted': 'Webhook deleted',
};

/** A day picked in the form (YYYY-MM-DD) as the API's time bound: since its start, until the next day's start (UTC). */
function dayStart(day: string, plusDays = 0): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + plusDays);
  return date.toISOString();
}

/** The organization's audit log (owners and admins): filters by action, days and actor, newest first, paged. */
export function AuditLogPage() {
  const [filters, setFilters] = useState<AuditFilters>({});
  const [actorLabel, setActorLabel] = useState('');
  const [page, setPage] = useState(1);
  const events = useAuditEvents(filters, page);
  const apply = (next: AuditFilters) => {
    setFilters(next);
    setPage(1);
  };
  const filterByActor = (event: AuditEvent) => {
    if (event.actor.id === null) return;
    setActorLabel(event.actor.label);
    apply({ ...filters, actor: event.actor.id });
  };
  const refused = events.error instanceof ApiError && events.error.status === 400 ? events.error : null;

  return (
    <div className="stack">
      <PageHeader title="Audit log">
        Who changed members, API tokens, share links, webhooks and devices, and who cancelled comparisons. Owners
        and admins see it; records are never edited.
      </PageHeader>
      <FiltersForm onApply={(next) => apply({ ...next, actor: filters.actor })} errors={refused} />
      {filters.actor !== undefined && (
        <p className="button-row">
          <span>
            Only <strong>{actorLabel}</strong>
          </span>
          <button type="button" className="button" onClick={() => apply({ ...filters, actor: undefined })}>
            Everyone
          </button>
        </p>
      )}
      {/* A refused filter is said at its field in the form; the list waits for a valid one. */}
      {!refused && (
        <QueryState
          query={events}
          what="the audit log"
          forbidden="Only owners and admins of the organization see its audit log."
          isEmpty={(data) => data.count === 0}
          empty={<p className="empty-state muted">Nothing recorded{Object.keys(filters).length ? ' for these filters' : ''}.</p>}>
          {(data) => (
            <section className="card">
              <DataTable label="Audit log" columns={['When', 'Who', 'What', 'Target', 'Details']}>
                <tbody>
                  {data.results.map((event) => (
                    <AuditRow key={event.id} event={event} onActor={filterByActor} />
                  ))}
                </tbody>
              </DataTable>
              <Pager page={page} data={data} onPage={setPage} />
            </section>
          )}
        </QueryState>
      )}
    </div>
  );
}

function AuditRow({ event, onActor }: { event: AuditEvent; onActor: (event: AuditEvent) => void }) {
  return (
    <tr>
      <td>{formatDateTime(event.created_at)}</td>
      <td>
        {event.actor.id === null ? (
          event.actor.label || <span className="muted">system</span>
        ) : (
          <button type="button" className="button-link" title="Show only this person's actions" onClick={() => onActor(event)}>
            {event.actor.label}
          </button>
        )}
      </td>
      <th scope="row">{ACTION_LABELS[event.action]}</th>
      <td>{event.target.label || event.target.id}</td>
      <td className="small">{detailsText(event.details)}</td>
    </tr>
  );
}

function FiltersForm({ onApply, errors }: { onApply: (filters: AuditFilters) => void; errors: ApiError | null }) {
  const [action, setAction] = useState<AuditAction | ''>('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const ids = { action: useId(), since: useId(), until: useId(), sinceErrors: useId(), untilErrors: useId() };
  const fieldErrors = errors ? flattenFieldErrors(errors.body) : [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      action: action || undefined,
      since: since ? dayStart(since) : undefined,
      until: until ? dayStart(until, 1) : undefined,
    });
  };
  return (
    <form className="card pad button-row" onSubmit={submit} aria-label="Filter the audit log">
      <div className="field">
        <label htmlFor={ids.action}>Action</label>
        <select id={ids.action} value={action} onChange={(e) => setAction(e.target.value as AuditAction | '')}>
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((value) => (
            <option key={value} value={value}>
              {ACTION_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.since}>From (UTC day)</label>
        <input id={ids.since} type="date" value={since} onChange={(e) => setSince(e.target.value)} aria-describedby={ids.sinceErrors} />
        <FieldMessages id={ids.sinceErrors} messages={fieldMessages(fieldErrors, 'since')} />
      </div>
      <div className="field">
        <label htmlFor={ids.until}>To (UTC day, included)</label>
        <input id={ids.until} type="date" value={until} onChange={(e) => setUntil(e.target.value)} aria-describedby={ids.untilErrors} />
        <FieldMessages id={ids.untilErrors} messages={fieldMessages(fieldErrors, 'until')} />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          Filter
        </button>
      </div>
    </form>
  );
}

/** The details worth reading, as "key: value" pairs; ids are left out (the target names the object). */
function detailsText(details: AuditEvent['details']): string {
  return Object.entries(details)
    .filter(([key]) => !key.endsWith('_id'))
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${formatValue(value)}`)
    .join('; ');
}

function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([key, inner]) => `${key} ${formatValue(inner)}`)
      .join(', ');
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '–';
}
