import { useId, useState, type FormEvent } from 'react';
import { Spinner } from '@/components/spinner';
import { useComparisonShares, useCreateShare, useRevokeShare } from '../api/shares';
import type { ShareLinkCreated } from '../types';
import { ShareLinksTable } from './share-links-table';
import '../reports.css';
import { ShownOnce } from '@/components/shown-once';

const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '1', label: 'In 1 day' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 365 days' },
] as const;

/**
 * The comparison page's Share panel: create a public link to the report (its URL is shown
 * once, to copy), see who created each link and when it was last opened, revoke.
 */
export function SharePanel({ comparisonId }: { comparisonId: string }) {
  const shares = useComparisonShares(comparisonId);
  const create = useCreateShare(comparisonId);
  const revoke = useRevokeShare();
  const [expiry, setExpiry] = useState('');
  const [created, setCreated] = useState<ShareLinkCreated | null>(null);
  const expiryId = useId();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(expiry ? { expires_in_days: Number(expiry) } : {}, { onSuccess: (link) => setCreated(link) });
  };

  return (
    <section className="card share-panel" aria-labelledby="share-heading">
      <h2 id="share-heading">Share</h2>
      <p className="muted">
        A share link shows this comparison&apos;s report (charts, verdict, method) to anyone who has it, without
        signing in, until it expires or is revoked. Nothing else of the organization is reachable from it.
      </p>
      <p className="share-downloads">
        To attach the report yourself instead, download it (HTML that opens offline, or PDF) under{' '}
        <a href="#downloads">Downloads</a> once the comparison has finished.
      </p>
      <form className="share-form" onSubmit={onSubmit}>
        <div className="field field-inline">
          <label htmlFor={expiryId}>Link expires</label>
          <select id={expiryId} value={expiry} onChange={(event) => setExpiry(event.target.value)}>
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create share link'}
        </button>
      </form>
      {create.isError && (
        <p role="alert" className="alert alert-error">
          Could not create the link: {create.error.message}
        </p>
      )}
      {created && (
        <ShownOnce value={created.url} onDismiss={() => setCreated(null)} ariaLabel="New share link" inputTestId="share-url">
          <strong>Copy this link now:</strong> it is shown only once.
        </ShownOnce>
      )}
      {revoke.isError && (
        <p role="alert" className="alert alert-error">
          Could not revoke the link: {revoke.error.message}
        </p>
      )}
      {shares.isPending ? (
        <Spinner label="Loading share links" />
      ) : shares.isError ? (
        <p role="alert" className="alert alert-error">
          Could not load the share links: {shares.error.message}
        </p>
      ) : shares.data.results.length === 0 ? (
        <p className="muted">No share links yet.</p>
      ) : (
        <ShareLinksTable
          label="Share links of this comparison"
          links={shares.data.results}
          onRevoke={(link) => revoke.mutate(link)}
          revokingId={revoke.isPending ? revoke.variables?.id : null}
        />
      )}
    </section>
  );
}
