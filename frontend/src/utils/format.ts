/**
 * Number formatters, one per precision, made once: `toLocaleString` with options builds a new
 * Intl.NumberFormat on every call (tens of microseconds each), and a results page formats
 * thousands of numbers while it renders.
 */
const numberFormats = new Map<number, Intl.NumberFormat>();

/** `value` in en-US digit grouping with at most `maximumFractionDigits` decimals: 1,615,506 or 12.5. */
export function formatNumber(value: number, maximumFractionDigits = 0): string {
  let format = numberFormats.get(maximumFractionDigits);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { maximumFractionDigits });
    numberFormats.set(maximumFractionDigits, format);
  }
  return format.format(value);
}

/** Two decimals below 10, one below 100, none above: how sizes and rates read best. */
const scaledDigits = (value: number) => (value >= 100 ? 0 : value >= 10 ? 1 : 2);

const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

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
  return `${formatNumber(value, scaledDigits(value))} ${unit}`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return `${formatNumber(ms, ms >= 100 ? 0 : 1)} ms`;
}

export function formatPercent(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  const sign = pct > 0 ? '+' : pct < 0 ? '−' : '';
  return `${sign}${formatNumber(Math.abs(pct), 1)} %`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return dateTimeFormat.format(date);
}

/**
 * A signed change as the engine's summary line writes it (verdict.py `_signed_pct`):
 * whole percent from ±9.5 up, one decimal below, "0 %" for no change.
 */
export function formatChangePct(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  const magnitude = Math.abs(pct);
  const digits = magnitude >= 9.5 ? magnitude.toFixed(0) : magnitude.toFixed(1);
  if (Number(digits) === 0) return '0 %';
  return `${pct < 0 ? '−' : '+'}${digits} %`;
}

/** "−75 % [−78 %, −71 %]". */
export function formatChangeWithCi(
  pct: number | null | undefined,
  ci: readonly (number | null | undefined)[] | null | undefined,
): string {
  const point = formatChangePct(pct);
  if (!ci || ci.length < 2) return point;
  return `${point} [${formatChangePct(ci[0])}, ${formatChangePct(ci[1])}]`;
}

/** A signed number with a typographic minus: −0.93. */
export function formatSigned(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value).toFixed(digits);
  return `${value < 0 && Number(magnitude) !== 0 ? '−' : ''}${magnitude}`;
}

/** p-values as the summary line writes them: "< 0.001" or "0.012". */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return 'n/a';
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** Decimal byte sizes (35,000 B → "35 KB"), like the seed experiments. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = [
    { unit: 'B', divisor: 1 },
    { unit: 'KB', divisor: 1e3 },
    { unit: 'MB', divisor: 1e6 },
    { unit: 'GB', divisor: 1e9 },
  ];
  let chosen = units[0]!;
  for (const candidate of units) if (Math.abs(bytes) >= candidate.divisor) chosen = candidate;
  const value = bytes / chosen.divisor;
  return `${formatNumber(value, scaledDigits(value))} ${chosen.unit}`;
}

/** A duration in seconds as people say it: 45 s, 3 min, 1 h 20 min. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}
