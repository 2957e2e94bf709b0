import { Link } from 'react-router-dom';
import { ComparisonsList } from '@/features/comparisons/components/comparisons-list';

export function ComparisonsRoute() {
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Comparisons</h1>
          <p className="muted">Every protocol comparison of your organization, newest first.</p>
        </div>
        <Link to="/comparisons/new" className="button button-primary">
          New comparison
        </Link>
      </header>
      <ComparisonsList />
    </div>
  );
}
