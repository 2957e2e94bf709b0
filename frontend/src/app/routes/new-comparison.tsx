import { useNavigate } from 'react-router-dom';
import { CreateComparisonForm } from '@/features/comparisons/components/create-comparison-form';

export function NewComparisonRoute() {
  const navigate = useNavigate();
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>New comparison</h1>
          <p className="muted">Start from a preset, then adjust the arms and the size of the experiment.</p>
        </div>
      </header>
      <CreateComparisonForm onCreated={(comparison) => void navigate(`/comparisons/${comparison.id}`)} />
    </div>
  );
}
