import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { CreateComparisonForm } from '@/features/comparisons/components/create-comparison-form';
import { PageHeader } from '@/components/page-header';

export function NewComparisonRoute() {
  const navigate = useNavigate();
  // ?from=<id>: edit a copy of that comparison (the comparison page's "Edit a copy").
  const from = useSearchParams()[0].get('from') ?? undefined;
  return (
    <div className="stack">
      <PageHeader title="New comparison">
        Start from a preset, a previous comparison (its page’s “Edit a copy”) or scratch, then adjust the arms and
        the size of the experiment; the spec is checked as you type. Or{' '}
        <Link to="/comparisons/new/har">replay a HAR recording</Link> against your own servers.
      </PageHeader>
      <CreateComparisonForm
        key={from ?? 'new'}
        fromId={from}
        onCreated={(comparison) => void navigate(`/comparisons/${comparison.id}`)}
      />
    </div>
  );
}
