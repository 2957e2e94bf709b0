/** Decimal units, as the seed experiment reports sizes (1,615,506 bytes = 1.615506 MB). */
const RATE_UNITS = [
  { unit: 'B/s', divisor: 1 },
  { unit: 'KB/s', divisor: 1e3 },
  { unit: 'MB/s', divisor: 1e6 },
  { unit: 'GB/s', divisor: 1e9 },
] as const;

export type RateUnit = (typeof RATE_UNITS)[number];

/** The largest unit in which `bytesPerSecond` is still ≥ 1. */
export function pickRateUnit(bytesPerSecond: number): RateUnit {
  let chosen: RateUnit = RATE_UNITS[0];
  for (const candidate of RATE_UNITS) {
    if (Math.abs(bytesPerSecond) >= candidate.divisor) chosen = candidate;
  }
  return chosen;
}

export function formatRate(bytesPerSecond: number | null | undefined): string {
  if (bytesPerSecond === null || bytesPerSecond === undefined || !Number.isFinite(bytesPerSecond)) return '–';
  const { unit, divisor } = pickRateUnit(bytesPerSecond);
  const value = bytesPerSecond / divisor;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: value >= 100 ? 0 : value >= 10 ? 1 : 2 })} ${unit}`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return `${ms.toLocaleString('en-US', { maximumFractionDigits: ms >= 100 ? 0 : 1 })} ms`;
}

export function formatPercent(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  const sign = pct > 0 ? '+' : pct < 0 ? '−' : '';
  return `${sign}${Math.abs(pct).toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
}
