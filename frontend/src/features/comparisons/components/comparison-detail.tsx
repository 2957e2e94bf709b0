import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router-dom';
import { useComparison } from '../api/get-comparison';
import { useCancelComparison } from '../api/cancel-comparison';
import { useCreateComparison } from '../api/create-comparison';
import { Spinner } from '@/components/spinner';
import { ApiError } from '@/lib/api-client';
import { isTerminal, statusOf, type ComparisonDetail, type ComparisonSpecRequest } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { StatusBadge } from './status-badge';
import { PartialResultsBanner } from './partial-results-banner';
import { ProgressBar } from './progress-bar';
import { RunsTable } from './runs-table';
import { TagList } from './tag-list';
import { DataTable } from '@/components/data-table';
import { StandInNotice } from '@/components/stand-in';

type ComparisonDetailViewProps = {
  id: string;
  /** The results section; rendered by the route so this feature does not import another. */
  renderResults: (comparison: ComparisonDetail) => ReactNode;
  /** The Share panel, opened by the header's Share button (omitted: no button); rendered by the route too. */
  renderShare?: (comparison: ComparisonDetail) => ReactNode;
  /** The sample retention has removed this comparison's samples: their downloads would answer 410. */
  samplesRemoved?: boolean;
};

export function ComparisonDetailView({ id, renderResults, renderShare, samplesRemoved = false }: ComparisonDetailViewProps) {
  const comparison = useComparison(id);
  const cancel = useCancelComparison();
  const rerun = useCreateComparison();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const previousStatus = useRef<string | undefined>(undefined);
  const [sharing, setSharing] = useState(false);
  const shareId = useId();
  const status = comparison.data ? statusOf(comparison.data) : undefined;

  // When the comparison reaches a terminal state, fetch the final results once more.
  useEffect(() => {
    if (status && previousStatus.current && previousStatus.current !== status && isTerminal(status)) {
      void queryClient.invalidateQueries({ queryKey: ['comparisons', 'results', id] });
    }
    previousStatus.current = status;
  }, [status, id, queryClient]);

  if (comparison.isPending) return <Spinner label="Loading comparison" />;
  if (comparison.isError) {
    const notFound = comparison.error instanceof ApiError && comparison.error.status === 404;
    return (
      <div className="stack">
        <p role="alert" className="alert alert-error">
          {notFound ? 'This comparison does not exist or belongs to another organization.' : comparison.error.message}
        </p>
        <p>
          <Link to="/comparisons">Back to comparisons</Link>
        </p>
      </div>
    );
  }
  const detail = comparison.data;
  const detailStatus = statusOf(detail);
  const terminal = isTerminal(detailStatus);

  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>{detail.name}</h1>
          <p className="muted">
            {detail.preset ? `Preset ${detail.preset}` : 'Custom spec'} · created {formatDateTime(detail.created_at)}
            {detail.finished_at && <> · finished {formatDateTime(detail.finished_at)}</>}
          </p>
          <TagList tags={detail.tags} />
        </div>
        <div className="page-actions">
          <StatusBadge status={detailStatus} />
          {renderShare && (
            <button
              type="button"
              className="button"
              aria-expanded={sharing}
              aria-controls={shareId}
              onClick={() => setSharing((open) => !open)}
            >
              Share
            </button>
          )}
          <button
            type="button"
            className="button"
            disabled={rerun.isPending || !detail.submitted_spec}
            onClick={() =>
              rerun.mutate(detail.submitted_spec as ComparisonSpecRequest, {
                onSuccess: (created) => void navigate(`/comparisons/${created.id}`),
              })
            }
            title="Create a new comparison from the same spec"
          >
            {rerun.isPending ? 'Re-running…' : 'Re-run'}
          </button>
          <Link className="button" to={`/comparisons/new?from=${detail.id}`}>
            Edit a copy
          </Link>
          {!terminal && (
            <button
              type="button"
              className="button button-danger"
              onClick={() => cancel.mutate(detail.id)}
              disabled={cancel.isPending}
            >
              {cancel.isPending ? 'Cancelling…' : 'Cancel comparison'}
            </button>
          )}
        </div>
      </header>
      {renderShare && (
        <div id={shareId} hidden={!sharing}>
          {sharing && renderShare(detail)}
        </div>
      )}
      <StandInNotice standIns={detail.runs.filter((run) => run.stand_in).length} total={detail.runs.length} />
      {rerun.isError && (
        <p role="alert" className="alert alert-error">
          Could not re-run: {rerun.error.message}
        </p>
      )}
      {cancel.isError && (
        <p role="alert" className="alert alert-error">
          Could not cancel: {cancel.error.message}
        </p>
      )}

      <section className="card" aria-labelledby="progress-heading">
        <h2 id="progress-heading">Progress</h2>
        <ProgressBar progress={detail.progress} label="Comparison progress" detailed />
        <div className="two-column">
          <div>
            <h3>Arms</h3>
            <DataTable label="Arms" columns={['Label', 'Protocol', 'Connection']}>
              <tbody>
                {detail.arms.map((arm) => (
                  <tr key={arm.label}>
                    <td>
                      {arm.label}
                      {arm.label === detail.baseline_arm && <span className="tag">baseline</span>}
                    </td>
                    <td>{arm.protocol}</td>
                    <td>{arm.connection}</td>
                  </tr>
                ))}
              </tbody>
            </DataTable>
          </div>
          <div>
            <h3>Runs</h3>
            {detail.runs.length === 0 ? (
              <p className="muted">Waiting for a device to take the first run.</p>
            ) : (
              <RunsTable runs={detail.runs} />
            )}
          </div>
        </div>
      </section>

      <section aria-labelledby="results-heading" className="stack">
        <h2 id="results-heading">Results</h2>
        {detailStatus === 'cancelled' && <PartialResultsBanner progress={detail.progress} />}
        {detailStatus === 'queued' ? (
          <p className="muted">Results appear once the first runs report.</p>
        ) : (
          renderResults(detail)
        )}
      </section>

      <section className="card" aria-labelledby="downloads-heading" id="downloads">
        <h2 id="downloads-heading">Downloads</h2>
        <p className="muted small" data-testid="samples-download-note">
          {samplesRemoved
            ? 'The samples were removed by the sample retention and can no longer be downloaded; the report keeps the stored analysis.'
            : 'Every sample (one row per request, with its timings), streamed: the charts above are drawn from aggregates.'}
        </p>
        <div className="page-actions">
          {!samplesRemoved && (
            <>
              <a className="button" href={`/api/v1/comparisons/${detail.id}/samples.csv`} download>
                Samples (CSV)
              </a>
              <a className="button" href={`/api/v1/comparisons/${detail.id}/samples.json`} download>
                Samples (JSON)
              </a>
            </>
          )}
          {detailStatus === 'finished' && (
            <>
              <a className="button" href={`/api/v1/comparisons/${detail.id}/report.html`} download>
                Report (HTML, opens offline)
              </a>
              <a className="button" href={`/api/v1/comparisons/${detail.id}/report.pdf`} download>
                Report (PDF)
              </a>
            </>
          )}
        </div>
      </section>
    </div>
  );
}
