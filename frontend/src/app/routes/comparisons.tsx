import { Link } from 'react-router-dom';
import { ComparisonsList } from '@/features/comparisons/components/comparisons-list';
import { PageHeader } from '@/components/page-header';

export function ComparisonsRoute() {
  return (
    <div className="stack">
      <PageHeader
        title="Comparisons"
        actions={
          <Link to="/comparisons/new" className="button button-primary">
            New comparison
          </Link>
        }
      >
        Every protocol comparison of your organization, newest first.
      </PageHeader>
      <ComparisonsList />
    </div>
  );
}
