import { Link, useSearchParams } from 'react-router-dom';
import { useComparisons } from '../api/get-comparisons';
import { Spinner } from '@/components/spinner';
import { statusOf } from '@/lib/api-types';
import { formatDateTime, formatNumber } from '@/utils/format';
import { StatusBadge } from './status-badge';
import { ProgressBar } from './progress-bar';
import { TagList } from './tag-list';
import { DataTable } from '@/components/data-table';

const COLUMNS = ['Name', 'Status', { label: 'Progress', className: 'col-progress' }, 'Preset', 'Created'];

export function ComparisonsList() {
  const [searchParams, setSearchParams] = useSearchParams();
  const page = Math.max(1, Number(searchParams.get('page') ?? '1') || 1);
  const comparisons = useComparisons(page);

  if (comparisons.isPending) return <Spinner label="Loading comparisons" />;
  if (comparisons.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not load comparisons: {comparisons.error.message}
      </p>
    );
  }
  const { results, count, next, previous } = comparisons.data;
  if (results.length === 0 && page === 1) {
    return (
      <div className="empty-state card">
        <h2>No comparisons yet</h2>
        <p>Start from a preset such as the MID image series to benchmark HTTPS/1.1 against HTTP/2.</p>
        <Link className="button button-primary" to="/comparisons/new">
          New comparison
        </Link>
      </div>
    );
  }

  return (
    <div className="card card-flush">
      <DataTable label="Comparisons" columns={COLUMNS} compact={false}>
        <tbody>
          {results.map((comparison) => (
            <tr key={comparison.id} data-testid="comparison-row">
              <td>
                <Link to={`/comparisons/${comparison.id}`} className="row-title">
                  {comparison.name}
                </Link>
                <TagList tags={comparison.tags} />
              </td>
              <td>
                <StatusBadge status={statusOf(comparison)} />
              </td>
              <td>
                <ProgressBar progress={comparison.progress} label={`Progress of ${comparison.name}`} />
              </td>
              <td className="muted">{comparison.preset ?? 'custom'}</td>
              <td className="muted nowrap">{formatDateTime(comparison.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </DataTable>
      <nav className="pagination" aria-label="Pagination">
        <span className="muted">
          {formatNumber(count, 3)} {count === 1 ? 'comparison' : 'comparisons'} · page {page}
        </span>
        <div className="button-row">
          <button
            type="button"
            className="button"
            disabled={!previous}
            onClick={() => setSearchParams({ page: String(page - 1) })}
          >
            Previous
          </button>
          <button
            type="button"
            className="button"
            disabled={!next}
            onClick={() => setSearchParams({ page: String(page + 1) })}
          >
            Next
          </button>
        </div>
      </nav>
    </div>
  );
}
