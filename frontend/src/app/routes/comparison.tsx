import { usePrefetchQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { ComparisonDetailView } from '@/features/comparisons/components/comparison-detail';
import { ResultsPanel } from '@/features/results/components/results-panel';
import { resultsQueryOptions } from '@/features/results/api/get-results';
import { SharePanel } from '@/features/reports/components/share-panel';
import { isTerminal, statusOf } from '@/lib/api-types';

export function ComparisonRoute() {
  const { id = '' } = useParams();
  // The results (the page's largest answer) are asked for with the comparison, not after it has
  // arrived and the results panel has mounted; the panel then finds them in the cache.
  usePrefetchQuery(resultsQueryOptions(id, false));
  return (
    <div className="stack">
      <ComparisonDetailView
        id={id}
        renderResults={(comparison) => (
          <ResultsPanel comparisonId={comparison.id} live={!isTerminal(statusOf(comparison))} />
        )}
        renderShare={(comparison) => <SharePanel comparisonId={comparison.id} />}
      />
    </div>
  );
}
