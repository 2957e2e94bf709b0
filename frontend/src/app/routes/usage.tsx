import { UsagePage } from '@/features/usage/components/usage-page';

export function UsageRoute() {
  return <UsagePage />;
}
