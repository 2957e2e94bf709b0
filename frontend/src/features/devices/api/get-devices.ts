import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { DeviceDetail, DevicePage } from '@/lib/api-types';

/** Runners report every 10 s; the page follows at the same pace. */
export const FLEET_POLL_MS = 10_000;
/** The whole fleet of a lab on one page (the API's largest page). */
export const FLEET_PAGE_SIZE = 200;

export function getDevices(): Promise<DevicePage> {
  return unwrap(api.GET('/api/v1/devices', { params: { query: { page_size: FLEET_PAGE_SIZE } } }));
}

export const devicesQueryKey = ['devices', 'list'] as const;

export const devicesQueryOptions = () =>
  queryOptions({ queryKey: devicesQueryKey, queryFn: getDevices, refetchInterval: FLEET_POLL_MS });

export function useDevices() {
  return useQuery(devicesQueryOptions());
}

export function getDevice(id: string): Promise<DeviceDetail> {
  return unwrap(api.GET('/api/v1/devices/{device_id}', { params: { path: { device_id: id } } }));
}

export function useDevice(id: string, enabled: boolean) {
  return useQuery({ queryKey: ['devices', 'detail', id], queryFn: () => getDevice(id), enabled });
}
