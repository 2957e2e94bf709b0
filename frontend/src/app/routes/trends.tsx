import { Plot } from '@/features/results/components/plot';
import { TrendsPage } from '@/features/trends/components/trends-page';
import { PageHeader } from '@/components/page-header';

export function TrendsRoute() {
  return (
    <div className="stack">
      <PageHeader title="Trends">
        One metric of one arm across the comparisons of a branch, with each comparison&apos;s verdict against its
        baseline arm.
      </PageHeader>
      <TrendsPage renderChart={(chart) => <Plot {...chart} />} />
    </div>
  );
}
