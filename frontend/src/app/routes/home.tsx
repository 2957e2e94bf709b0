import { Link } from 'react-router-dom';
import { ProgressBar } from '@/features/comparisons/components/progress-bar';
import { StatusBadge } from '@/features/comparisons/components/status-badge';
import { HomePage } from '@/features/home/components/home-page';

export function HomeRoute() {
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Home</h1>
          <p className="muted">Your latest comparisons and their verdicts, what is running, and the device farm.</p>
        </div>
        <div className="home-actions">
          <Link to="/trends" className="button">
            Trends
          </Link>{' '}
          <Link to="/comparisons/new" className="button button-primary">
            New comparison
          </Link>
        </div>
      </header>
      <HomePage
        renderStatus={(status) => <StatusBadge status={status} />}
        renderProgress={(progress, label) => <ProgressBar progress={progress} label={label} detailed />}
      />
    </div>
  );
}
