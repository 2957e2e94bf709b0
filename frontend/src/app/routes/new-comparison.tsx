import { Link, useNavigate } from 'react-router-dom';
import { CreateComparisonForm } from '@/features/comparisons/components/create-comparison-form';

export function NewComparisonRoute() {
  const navigate = useNavigate();
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>New comparison</h1>
          <p className="muted">
            Start from a preset, then adjust the arms and the size of the experiment, or{' '}
            <Link to="/comparisons/new/har">replay a HAR recording</Link> against your own servers.
          </p>
        </div>
      </header>
      <CreateComparisonForm onCreated={(comparison) => void navigate(`/comparisons/${comparison.id}`)} />
    </div>
  );
}
