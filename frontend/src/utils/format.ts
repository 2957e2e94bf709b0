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

// --- Verdict numbers ---------------------------------------------------------------------
// One rule for a verdict's numbers wherever they are read: the server's summary lines and the
// CLI's tables (both by its one Python implementation, device-runner/contract/latencylab_contract/verdict_numbers.py)
// and these. Both pass device-runner/contract/latencylab_contract/verdict-format-vectors.json
// (verdict-numbers.test.ts); docs/methodology.md §8.2 states the rule. Rounding is half away
// from zero on the shortest decimal (roundDecimal): 10.5 → 11, 2.25 → 2.3, where toFixed
// rounds the binary expansion (0.15 → 0.1) and Python's round() rounds half to even.

const MINUS = '−';
const MISSING = '–';
const INFINITY = '∞';

const isNumber = (value: number | null | undefined): value is number =>
  typeof value === 'number' && !Number.isNaN(value);

const grouped = (whole: string) => whole.replace(/\B(?=(\d{3})+$)/g, ',');

/** `magnitude` ≥ 0 (finite) rounded to `digits` decimals: its text and whether it rounds to zero. */
function roundedText(magnitude: number, digits: number): { text: string; whole: string; zero: boolean } {
  const [whole, fraction] = roundDecimal(magnitude, digits);
  return {
    text: digits > 0 ? `${grouped(whole)}.${fraction}` : grouped(whole),
    whole,
    zero: /^0+$/.test(whole + fraction),
  };
}

/** A percent's magnitude: one decimal below 10 (after rounding), whole from 10 up, "0" for what rounds to zero. */
function percentMagnitude(magnitude: number): string {
  if (magnitude === Infinity) return INFINITY;
  const tenths = roundedText(magnitude, 1);
  if (tenths.zero) return '0';
  return tenths.whole.length < 2 ? tenths.text : roundedText(magnitude, 0).text;
}

/** A change in percent with its sign: "+11 %", "−4.8 %", "0 %". */
export function formatChangePct(pct: number | null | undefined): string {
  if (!isNumber(pct)) return MISSING;
  const magnitude = percentMagnitude(Math.abs(pct));
  if (magnitude === '0') return '0 %';
  return `${pct < 0 ? MINUS : '+'}${magnitude} %`;
}

/** "−4.8 % [−12 %, +1.0 %]": a change and its confidence interval, each number by the same rule. */
export function formatChangeWithCi(
  pct: number | null | undefined,
  ci: readonly (number | null | undefined)[] | null | undefined,
): string {
  const point = formatChangePct(pct);
  if (point === MISSING || !ci || ci.length !== 2) return point;
  return `${point} [${formatChangePct(ci[0])}, ${formatChangePct(ci[1])}]`;
}

/** A margin in percent, without a sign (the text puts "±" before it): "44 %", "4.5 %". */
export function formatMarginPct(pct: number | null | undefined): string {
  if (!isNumber(pct)) return MISSING;
  return `${percentMagnitude(Math.abs(pct))} %`;
}

/** An effect size with its sign: Cliff's δ "+0.41", "−0.93"; "0.00" for no effect. */
export function formatSigned(value: number | null | undefined, digits = 2): string {
  if (!isNumber(value)) return MISSING;
  if (!Number.isFinite(value)) return `${value < 0 ? MINUS : '+'}${INFINITY}`;
  const rounded = roundedText(Math.abs(value), digits);
  return `${rounded.zero ? '' : value < 0 ? MINUS : '+'}${rounded.text}`;
}

/** Exactly `digits` decimals, "−" when negative (and not rounding to zero): ratios "1.080", speed-ups "1.08". */
export function formatFixed(value: number | null | undefined, digits: number): string {
  if (!isNumber(value)) return MISSING;
  if (!Number.isFinite(value)) return `${value < 0 ? MINUS : ''}${INFINITY}`;
  const rounded = roundedText(Math.abs(value), digits);
  return `${value < 0 && !rounded.zero ? MINUS : ''}${rounded.text}`;
}

/** p-values as the summary line writes them: "< 0.001", or three decimals ("0.012"); "n/a" when there is none. */
export function formatP(p: number | null | undefined): string {
  if (!isNumber(p) || !Number.isFinite(p)) return 'n/a';
  return p < 0.001 ? '< 0.001' : formatFixed(p, 3);
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
