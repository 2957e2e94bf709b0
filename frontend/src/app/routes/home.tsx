import { Link } from 'react-router-dom';
import { ProgressBar } from '@/features/comparisons/components/progress-bar';
import { StatusBadge } from '@/features/comparisons/components/status-badge';
import { HomePage } from '@/features/home/components/home-page';
import { PageHeader } from '@/components/page-header';

export function HomeRoute() {
  return (
    <div className="stack">
      <PageHeader
        title="Home"
        actions={
          <div className="home-actions">
            <Link to="/trends" className="button">
              Trends
            </Link>{' '}
            <Link to="/comparisons/new" className="button button-primary">
              New comparison
            </Link>
          </div>
        }
      >
        Your latest comparisons and their verdicts, what is running, and the device farm.
      </PageHeader>
      <HomePage
        renderStatus={(status) => <StatusBadge status={status} />}
        renderProgress={(progress, label) => <ProgressBar progress={progress} label={label} detailed />}
      />
    </div>
  );
}
