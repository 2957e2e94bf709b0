import { useParams } from 'react-router-dom';
import { ComparisonDetailView } from '@/features/comparisons/components/comparison-detail';
import { ResultsPanel } from '@/features/results/components/results-panel';
import { useResults } from '@/features/results/api/get-results';
import { SharePanel } from '@/features/reports/components/share-panel';
import { isTerminal, statusOf } from '@/lib/api-types';

export function ComparisonRoute() {
  const { id = '' } = useParams();
  // The results say whether the retention removed the samples (the page's loader asked for them).
  const results = useResults(id, false);
  return (
    <div className="stack">
      <ComparisonDetailView
        id={id}
        renderResults={(comparison) => (
          <ResultsPanel comparisonId={comparison.id} live={!isTerminal(statusOf(comparison))} />
        )}
        renderShare={(comparison) => <SharePanel comparisonId={comparison.id} />}
        samplesRemoved={Boolean(results.data?.samples_removed)}
      />
    </div>
  );
}
