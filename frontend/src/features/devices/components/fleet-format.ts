import { formatDateTime } from '@/utils/format';

/** "12 s ago", "4 min ago", "3 h ago", else the date: how fresh a heartbeat is. */
export function formatAge(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return 'never';
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return formatDateTime(iso);
}

export function formatBattery(level: number | null | undefined, charging: boolean | null | undefined): string {
  if (level === null || level === undefined) return '–';
  return `${Math.round(level)} %${charging ? ' · charging' : ''}`;
}

/** Temperature with the platform's thermal status when it says more than "all fine". */
export function formatTemperature(celsius: number | null | undefined, thermal: string | null | undefined): string {
  const temperature = celsius === null || celsius === undefined ? '–' : `${celsius.toFixed(1)} °C`;
  return thermal && !['none', 'nominal', ''].includes(thermal) ? `${temperature} · ${thermal}` : temperature;
}

export const PLATFORM_LABELS: Record<string, string> = { android: 'Android', ios: 'iOS', host: 'Host' };
