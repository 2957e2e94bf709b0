import { DevicesPage } from '@/features/devices/components/devices-page';

export function DevicesRoute() {
  return <DevicesPage />;
}
