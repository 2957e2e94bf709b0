import { Link } from 'react-router-dom';
import { ACTIONS, DataTable } from '@/components/data-table';
import { formatDateTime } from '@/utils/format';
import type { ShareLink } from '../types';

const STATE_LABELS: Record<ShareLink['state'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

type ShareLinksTableProps = {
  links: ShareLink[];
  /** The Share links page lists every comparison's links: name the comparison. */
  showComparison?: boolean;
  onRevoke: (link: ShareLink) => void;
  revokingId?: string | null;
  label: string;
};

export function ShareLinksTable({ links, showComparison = false, onRevoke, revokingId, label }: ShareLinksTableProps) {
  return (
    <DataTable label={label} columns={['Link', showComparison && 'Comparison', 'Created by', 'Created', 'Last opened', 'Opens', 'Expires', 'State', ACTIONS]}>
      <tbody>
        {links.map((link) => (
          <tr key={link.id} data-testid="share-link-row" data-state={link.state}>
            <th scope="row">
              <code>{link.prefix}…</code>
            </th>
            {showComparison && (
              <td>
                <Link to={`/comparisons/${link.comparison.id}`}>{link.comparison.name}</Link>
              </td>
            )}
            <td>{link.created_by ?? 'an API token'}</td>
            <td>{formatDateTime(link.created_at)}</td>
            <td>{link.last_opened_at ? formatDateTime(link.last_opened_at) : 'never'}</td>
            <td>{link.open_count}</td>
            <td>{link.expires_at ? formatDateTime(link.expires_at) : 'never'}</td>
            <td>
              <span className={`badge share-state-${link.state}`}>{STATE_LABELS[link.state] ?? link.state}</span>
            </td>
            <td>
              {link.state === 'active' && (
                <button
                  type="button"
                  className="button button-danger"
                  onClick={() => onRevoke(link)}
                  disabled={revokingId === link.id}
                  aria-label={`Revoke share link ${link.prefix}…`}
                >
                  {revokingId === link.id ? 'Revoking…' : 'Revoke'}
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
