import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { ACTIONS, DataTable } from '@/components/data-table';
import { ErrorSummary, FieldMessages, fieldMessages } from '@/components/field-messages';
import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
import { RevokeButton } from '@/components/revoke-button';
import { fieldErrorsOf } from '@/lib/api-client';
import { WEBHOOK_EVENTS, type Webhook, type WebhookCreated, type WebhookDelivery, type WebhookEvent } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { formatDateTime } from '@/utils/format';
import {
  useCreateWebhook,
  useDeleteWebhook,
  useRedeliver,
  useUpdateWebhook,
  useWebhookDeliveries,
  useWebhooks,
} from '../api/webhooks';
import { ShownOnce } from '@/components/shown-once';

const EVENT_HELP: Record<WebhookEvent, string> = {
  'comparison.finished': 'a comparison finished, with its gate outcome',
  'comparison.failed': 'a comparison failed or was cancelled',
};

/** Webhooks: register (the signing secret shown once), change events, turn on and off, delete, and each one's deliveries. */
export function WebhooksPage() {
  const webhooks = useWebhooks();
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  return (
    <div className="stack">
      <PageHeader title="Webhooks">
        LatencyLab POSTs a signed JSON event (<code>X-LatencyLab-Signature: sha256=…</code>, HMAC of the body with
        the webhook's secret) when a comparison ends, and retries with backoff when the receiver fails.
      </PageHeader>
      <section aria-labelledby="new-webhook-heading" className="card pad stack-tight">
        <h2 id="new-webhook-heading">New webhook</h2>
        <CreateWebhookForm onCreated={setCreated} />
        {created && <NewWebhookSecret webhook={created} onDismiss={() => setCreated(null)} />}
      </section>
      <section aria-labelledby="webhooks-heading" className="stack-tight">
        <h2 id="webhooks-heading">Webhooks</h2>
        <QueryState
          query={webhooks}
          what="webhooks"
          isEmpty={(data) => data.results.length === 0}
          empty={<p className="empty-state muted">No webhook yet. Register one above to hear when comparisons end.</p>}>
          {(page) => (
            <ul className="plain-list stack">
              {page.results.map((webhook) => (
                <li key={webhook.id}>
                  <WebhookCard webhook={webhook} />
                </li>
              ))}
            </ul>
          )}
        </QueryState>
      </section>
    </div>
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (webhook: WebhookCreated) => void }) {
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([...WEBHOOK_EVENTS]);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const urlId = useId();
  const urlErrorsId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors([]);
    create.mutate(
      { url: url.trim(), events },
      {
        onSuccess: (webhook) => {
          setUrl('');
          onCreated(webhook);
        },
        onError: (error) => setErrors(fieldErrorsOf(error)),
      },
    );
  };
  const urlErrors = fieldMessages(errors, 'url');
  const eventErrors = fieldMessages(errors, 'events');
  return (
    <form className="form stack-tight" onSubmit={submit} aria-label="New webhook" noValidate>
      <div className="field">
        <label htmlFor={urlId}>Receiver URL</label>
        <input
          id={urlId}
          type="url"
          value={url}
          placeholder="https://ci.example.com/hooks/latencylab"
          autoComplete="off"
          aria-invalid={urlErrors.length > 0}
          aria-describedby={urlErrors.length ? urlErrorsId : undefined}
          onChange={(event) => setUrl(event.target.value)}
        />
        <span className="hint">https:// to a public address (plain http:// only to localhost, where the server allows it).</span>
        <FieldMessages id={urlErrorsId} messages={urlErrors} />
      </div>
      <EventsFieldset events={events} onChange={setEvents} errors={eventErrors} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Registering…' : 'Register webhook'}
        </button>
      </div>
      <ErrorSummary errors={errors} title="The webhook was not registered:" />
    </form>
  );
}

type EventsFieldsetProps = { events: WebhookEvent[]; onChange: (events: WebhookEvent[]) => void; errors: string[] };

/** The events a webhook is sent: one checkbox each, with what it means; shared by the new and the edit form. */
function EventsFieldset({ events, onChange, errors }: EventsFieldsetProps) {
  const errorsId = useId();
  return (
    <fieldset className="fieldset" aria-describedby={errors.length ? errorsId : undefined}>
      <legend>Events</legend>
      {WEBHOOK_EVENTS.map((name) => (
        <label key={name} className="checkbox">
          <input
            type="checkbox"
            checked={events.includes(name)}
            onChange={(event) => onChange(event.target.checked ? [...events, name] : events.filter((e) => e !== name))}
          />{' '}
          <code>{name}</code> <span className="muted small">— {EVENT_HELP[name]}</span>
        </label>
      ))}
      <FieldMessages id={errorsId} messages={errors} />
    </fieldset>
  );
}

/** Changes which events a registered webhook is sent (PATCH of its events); the server's message shows at the field. */
function EditEventsForm({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  const update = useUpdateWebhook();
  const [events, setEvents] = useState<WebhookEvent[]>(webhook.events);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors([]);
    update.mutate(
      { id: webhook.id, body: { events } },
      {
        onSuccess: onDone,
        onError: (error) => setErrors(fieldErrorsOf(error)),
      },
    );
  };
  return (
    <form className="form stack-tight" onSubmit={submit} aria-label={`Events of ${webhook.url}`} noValidate>
      <EventsFieldset events={events} onChange={setEvents} errors={fieldMessages(errors, 'events')} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save events'}
        </button>
        <button type="button" className="button button-ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorSummary errors={errors.filter((error) => !error.path.startsWith('events'))} title="The events were not saved:" />
    </form>
  );
}

function NewWebhookSecret({ webhook, onDismiss }: { webhook: WebhookCreated; onDismiss: () => void }) {
  return (
    <ShownOnce value={webhook.secret} onDismiss={onDismiss} ariaLabel="New webhook secret" testId="new-webhook-secret">
      <strong>Copy the signing secret now: it will not be shown again.</strong> Verify each delivery's{' '}
      <code>X-LatencyLab-Signature</code> with it.
    </ShownOnce>
  );
}

function WebhookCard({ webhook }: { webhook: Webhook }) {
  const update = useUpdateWebhook();
  const remove = useDeleteWebhook();
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const deliveriesId = useId();
  const headingId = useId();
  return (
    <article className="card pad stack-tight" aria-labelledby={headingId} data-testid="webhook">
      <div className="section-header">
        <div>
          <h3 id={headingId} className="row-title">
            <code>{webhook.url}</code>
          </h3>
          <p className="muted small">
            {webhook.events.join(', ')} · registered {formatDateTime(webhook.created_at)}
          </p>
        </div>
        <div className="button-row">
          <span className={`badge ${webhook.active ? 'badge-finished' : 'badge-queued'}`} data-testid="webhook-state">
            {webhook.active ? 'Active' : 'Off'}
          </span>
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ id: webhook.id, body: { active: !webhook.active } })}
          >
            {webhook.active ? 'Turn off' : 'Turn on'}
          </button>
          <button type="button" className="button" aria-expanded={editing} onClick={() => setEditing((value) => !value)}>
            Edit events
          </button>
          <button
            type="button"
            className="button"
            aria-expanded={open}
            aria-controls={deliveriesId}
            onClick={() => setOpen((value) => !value)}
          >
            {open ? 'Hide deliveries' : 'Deliveries'}
          </button>
          <RevokeButton
            mutation={remove}
            variables={webhook.id}
            name={webhook.url}
            verb="Delete"
            confirm={`Delete the webhook to ${webhook.url}? Its deliveries go with it.`}
          />
        </div>
      </div>
      {update.isError && (
        <p role="alert" className="alert alert-error">
          {update.error.message}
        </p>
      )}
      {editing && <EditEventsForm webhook={webhook} onDone={() => setEditing(false)} />}
      <div id={deliveriesId} hidden={!open}>
        {open && <Deliveries webhook={webhook} />}
      </div>
    </article>
  );
}

const DELIVERY_BADGE: Record<WebhookDelivery['status'], { label: string; className: string }> = {
  pending: { label: 'Pending', className: 'badge-running' },
  succeeded: { label: 'Delivered', className: 'badge-finished' },
  failed: { label: 'Failed', className: 'badge-failed' },
};

function Deliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useWebhookDeliveries(webhook.id);
  const redeliver = useRedeliver(webhook.id);
  return (
    <QueryState
      query={deliveries}
      what="deliveries"
      isEmpty={(data) => data.results.length === 0}
      empty={<p className="muted">No delivery yet: one is made when a comparison ends.</p>}>
      {(page) => (
        <>
          <DataTable
            label={`Deliveries to ${webhook.url}`}
            columns={['Comparison', 'Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Delivered', ACTIONS]}>
            <tbody>
              {page.results.map((delivery) => {
                const badge = DELIVERY_BADGE[delivery.status];
                return (
                  <tr key={delivery.id} data-testid="delivery">
                    <th scope="row">
                      <Link to={`/comparisons/${delivery.comparison.id}`}>{delivery.comparison.name}</Link>
                    </th>
                    <td>
                      <code>{delivery.event}</code>
                    </td>
                    <td>
                      <span className={`badge ${badge.className}`} data-status={delivery.status}>
                        {badge.label}
                      </span>
                    </td>
                    <td>{delivery.attempts}</td>
                    <td>
                      {delivery.last_status_code !== null && <code>HTTP {delivery.last_status_code}</code>}
                      {delivery.last_error && <div className="muted small">{delivery.last_error}</div>}
                      {delivery.last_status_code === null && !delivery.last_error && '–'}
                    </td>
                    <td className="nowrap">{formatDateTime(delivery.created_at)}</td>
                    <td className="nowrap">{formatDateTime(delivery.delivered_at)}</td>
                    <td className="cell-action">
                      <button
                        type="button"
                        className="button"
                        disabled={delivery.status === 'pending' || (redeliver.isPending && redeliver.variables === delivery.id)}
                        title={delivery.status === 'pending' ? 'Still being delivered' : undefined}
                        onClick={() => redeliver.mutate(delivery.id)}
                      >
                        Redeliver<span className="visually-hidden"> {delivery.comparison.name}</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </DataTable>
          {redeliver.isError && (
            <p role="alert" className="alert alert-error">
              Could not redeliver: {redeliver.error.message}
            </p>
          )}
        </>
      )}
    </QueryState>
  );
}
