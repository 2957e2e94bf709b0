import { NetworkProfilesPage } from '@/features/network-profiles/components/network-profiles-page';

export function NetworkProfilesRoute() {
  return <NetworkProfilesPage />;
}
