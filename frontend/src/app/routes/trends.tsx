import { Plot } from '@/features/results/components/plot';
import { TrendsPage } from '@/features/trends/components/trends-page';

export function TrendsRoute() {
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Trends</h1>
          <p className="muted">
            One metric of one arm across the comparisons of a branch, with each comparison&apos;s verdict against its
            baseline arm.
          </p>
        </div>
      </header>
      <TrendsPage renderChart={(chart) => <Plot {...chart} />} />
    </div>
  );
}
