import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { ComparisonResults } from '@/lib/api-types';
import { formatDateTime } from '@/utils/format';
import { Spinner } from '@/components/spinner';
import { useBaselineCandidates } from '../api/get-baseline-candidates';
import { useBaselineVerdict } from '../api/get-verdict';
import { VerdictBanner } from './verdict';

/**
 * "Compare against another comparison": the verdict API's other baselines. Each arm is judged
 * against the same arm of a previous comparison (picked from the finished ones), or of the
 * latest run of this spec on a branch (`branch:main`) or with a tag (`tag:KEY=VALUE`).
 */
export function BaselinePicker({ results }: { results: ComparisonResults }) {
  const candidates = useBaselineCandidates(true);
  const [choice, setChoice] = useState('');
  const [ref, setRef] = useState('');
  const [baseline, setBaseline] = useState<string | null>(null);
  const verdict = useBaselineVerdict(results.comparison, baseline);
  const headingId = useId();
  const others = (candidates.data?.results ?? []).filter((candidate) => candidate.id !== results.comparison);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = (choice === 'ref' ? ref : choice).trim();
    setBaseline(value || null);
  }

  return (
    <section className="card stack-sm" aria-labelledby={headingId}>
      <h3 id={headingId}>Compare against another comparison</h3>
      <form className="filter-bar" onSubmit={submit} aria-label="Baseline">
        <div className="field">
          <label htmlFor="baseline-choice">Baseline</label>
          <select id="baseline-choice" value={choice} onChange={(event) => setChoice(event.target.value)}>
            <option value="">Pick a finished comparison…</option>
            {others.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name} · {formatDateTime(candidate.created_at)}
              </option>
            ))}
            <option value="ref">A branch or tag…</option>
          </select>
          {candidates.isPending && <Spinner label="Loading comparisons" />}
          {candidates.isError && <p className="hint">Could not list comparisons: {candidates.error.message}</p>}
          {candidates.isSuccess && others.length === 0 && (
            <p className="hint">No other finished comparison yet: name a branch or tag instead.</p>
          )}
        </div>
        {choice === 'ref' && (
          <div className="field">
            <label htmlFor="baseline-ref">Branch or tag</label>
            <input
              id="baseline-ref"
              value={ref}
              placeholder="branch:main or tag:release=2.4"
              onChange={(event) => setRef(event.target.value)}
            />
          </div>
        )}
        <button type="submit" className="button" disabled={choice === '' || (choice === 'ref' && ref.trim() === '')}>
          Compare
        </button>
      </form>
      {baseline !== null && verdict.isPending && <Spinner label="Judging against the baseline" />}
      {verdict.isError && (
        <p role="alert" className="alert alert-error">
          No verdict against {baseline}: {verdict.error.message}
        </p>
      )}
      {verdict.isSuccess && (
        <div data-testid="baseline-verdict">
          <VerdictBanner verdict={verdict.data} arms={results.arms} />
          {verdict.data.baseline.comparison && (
            <p className="muted small">
              Against <Link to={`/comparisons/${verdict.data.baseline.comparison}`}>that comparison</Link>: each arm
              judged against the same arm there.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
