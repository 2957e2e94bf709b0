/**
 * Numbers and dates in one fixed format (en-US digits, en-GB dates), written without Intl: the
 * first Intl call in a page (a NumberFormat, a DateTimeFormat, even `localeCompare`) loads ICU's
 * data, 40–80 ms of the main thread in a fresh Chromium tab, just while a results page is being
 * drawn. format.test.ts checks these against Intl over thousands of values.
 */

/** `value` in en-US digit grouping with at most `maximumFractionDigits` decimals: 1,615,506 or 12.5. */
export function formatNumber(value: number, maximumFractionDigits = 0): string {
  if (Number.isNaN(value)) return 'NaN';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude === Infinity) return `${sign}∞`;
  const [whole, fraction] = roundDecimal(magnitude, maximumFractionDigits);
  const shown = fraction.replace(/0+$/, '');
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${shown ? `.${shown}` : ''}`;
}

/**
 * A finite `value` ≥ 0 rounded half away from zero to `digits` decimals, as whole and fraction digit
 * strings. It rounds the shortest decimal that reads back as `value` (as Intl does: 1.005 → 1.01),
 * not its binary expansion (`toFixed`: 1.005 → 1.00).
 */
function roundDecimal(value: number, digits: number): [string, string] {
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  const significant = mantissa.replace('.', '');
  const point = Number(exponent) + 1; // where the decimal point falls in `significant`
  const padded = point <= 0 ? '0'.repeat(1 - point) + significant : significant.padEnd(point + 1, '0');
  const wholeLength = Math.max(point, 1);
  const kept = padded.slice(0, wholeLength) + padded.slice(wholeLength, wholeLength + digits).padEnd(digits, '0');
  const roundUp = (padded[wholeLength + digits] ?? '0') >= '5';
  const rounded = (BigInt(kept) + (roundUp ? 1n : 0n)).toString().padStart(digits + 1, '0');
  return [rounded.slice(0, rounded.length - digits), rounded.slice(rounded.length - digits)];
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];
const twoDigits = (value: number) => String(value).padStart(2, '0');

/** "05 Nov", in the browser's time zone (en-GB's short day and month). */
export function formatDayMonth(date: Date): string {
  return `${twoDigits(date.getDate())} ${MONTHS[date.getMonth()]}`;
}

/** "2026-11" → "November 2026" (a calendar month, no time zone involved). */
export function formatMonth(month: string): string {
  const [year = 1970, number = 1] = month.split('-').map(Number);
  return `${MONTHS_LONG[number - 1] ?? month} ${year}`;
}

/** Two decimals below 10, one below 100, none above: how sizes and rates read best. */
const scaledDigits = (value: number) => (value >= 100 ? 0 : value >= 10 ? 1 : 2);

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

/** "05 Nov 2026, 15:32" in the browser's time zone (en-GB's day, short month, 24-hour time). */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const time = `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
  return `${formatDayMonth(date)} ${date.getFullYear()}, ${time}`;
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
