import { Link, useNavigate } from 'react-router-dom';
import { HarReplayForm } from '@/features/comparisons/components/har-replay-form';
import { PageHeader } from '@/components/page-header';

export function HarReplayRoute() {
  const navigate = useNavigate();
  return (
    <div className="stack">
      <PageHeader title="Replay a recording">
        Import a HAR file, check what will be sent, then replay it against your own servers.{' '}
        <Link to="/comparisons/new">Start from a preset instead</Link>.
      </PageHeader>
      <HarReplayForm onCreated={(comparison) => void navigate(`/comparisons/${comparison.id}`)} />
    </div>
  );
}
