import { Link, useNavigate } from 'react-router-dom';
import { HarReplayForm } from '@/features/comparisons/components/har-replay-form';

export function HarReplayRoute() {
  const navigate = useNavigate();
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>Replay a recording</h1>
          <p className="muted">
            Import a HAR file, check what will be sent, then replay it against your own servers.{' '}
            <Link to="/comparisons/new">Start from a preset instead</Link>.
          </p>
        </div>
      </header>
      <HarReplayForm onCreated={(comparison) => void navigate(`/comparisons/${comparison.id}`)} />
    </div>
  );
}
