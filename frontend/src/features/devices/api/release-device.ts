import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { Device } from '@/lib/api-types';

export function releaseDevice(id: string) {
  return unwrap(api.POST('/api/v1/devices/{device_id}/release', { params: { path: { device_id: id } } }));
}

export function useReleaseDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (device: Pick<Device, 'id'>) => releaseDevice(device.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['devices'] });
      void queryClient.invalidateQueries({ queryKey: ['pools'] });
    },
  });
}
