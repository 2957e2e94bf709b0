import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Pager } from '@/components/pager';
import { QueryState } from '@/components/query-state';
import { useRevokeShare, useShares } from '../api/shares';
import { ShareLinksTable } from './share-links-table';
import '../reports.css';

/** Every share link of the organization, newest first, with revoke. */
export function ShareLinksPage() {
  const [page, setPage] = useState(1);
  const shares = useShares(page);
  const revoke = useRevokeShare();

  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Share links</h1>
          <p className="muted">
            Public links to comparison reports. Create one from a comparison&apos;s Share panel; revoke one here and it
            answers &ldquo;no longer valid&rdquo; at once.
          </p>
        </div>
      </header>
      {revoke.isError && (
        <p role="alert" className="alert alert-error">
          Could not revoke the link: {revoke.error.message}
        </p>
      )}
      <QueryState
        query={shares}
        what="the share links"
        isEmpty={(data) => data.count === 0}
        empty={
          <div className="empty-state card">
            <h2>No share links yet</h2>
            <p>
              Open a <Link to="/comparisons">comparison</Link> and create a link in its Share panel.
            </p>
          </div>
        }>
        {(data) => (
          <section className="card">
            <ShareLinksTable
              label="Share links of the organization"
              links={data.results}
              showComparison
              onRevoke={(link) => revoke.mutate(link)}
              revokingId={revoke.isPending ? revoke.variables?.id : null}
            />
            <Pager page={page} data={data} onPage={setPage} />
          </section>
        )}
      </QueryState>
    </div>
  );
}
