import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatChangePct,
  formatChangeWithCi,
  formatDateTime,
  formatDayMonth,
  formatMonth,
  formatMs,
  formatNumber,
  formatP,
  formatPercent,
  formatRate,
  formatSigned,
  pickRateUnit,
} from './format';

describe('throughput units', () => {
  it('uses decimal units like the seed experiment', () => {
    expect(formatRate(512)).toBe('512 B/s');
    expect(formatRate(1_615_506)).toBe('1.62 MB/s');
    expect(formatRate(48_250)).toBe('48.3 KB/s');
    expect(formatRate(null)).toBe('–');
  });

  it('picks the largest unit that keeps the value ≥ 1', () => {
    expect(pickRateUnit(999).unit).toBe('B/s');
    expect(pickRateUnit(1000).unit).toBe('KB/s');
    expect(pickRateUnit(2.5e6).unit).toBe('MB/s');
  });
});

describe('other formats', () => {
  it('formats milliseconds and signed percentages', () => {
    expect(formatMs(12.345)).toBe('12.3 ms');
    expect(formatMs(1234.5)).toBe('1,235 ms');
    expect(formatPercent(452.16)).toBe('+452.2 %');
    expect(formatPercent(-3)).toBe('−3 %');
    expect(formatPercent(null)).toBe('–');
  });
});

describe('effect-size formats', () => {
  it('writes changes and confidence intervals like the engine summary line', () => {
    expect(formatChangeWithCi(-75.2, [-78.4, -70.9])).toBe('−75 % [−78 %, −71 %]');
    expect(formatChangePct(-4.83)).toBe('−4.8 %');
    expect(formatChangePct(0.02)).toBe('0 %');
    expect(formatChangePct(12)).toBe('+12 %');
    expect(formatChangeWithCi(null, null)).toBe('–');
  });

  it('formats deltas, p-values and byte sizes', () => {
    expect(formatSigned(-0.934)).toBe('−0.93');
    expect(formatSigned(1.5, 1)).toBe('+1.5');
    expect(formatSigned(-0.001)).toBe('0.00');
    expect(formatP(0.0004)).toBe('< 0.001');
    expect(formatP(0.0123)).toBe('0.012');
    expect(formatP(null)).toBe('n/a');
    expect(formatBytes(35_000)).toBe('35 KB');
    expect(formatBytes(2_000_000)).toBe('2 MB');
    expect(formatBytes(800)).toBe('800 B');
  });
});

describe('formatDuration', () => {
  it('says seconds, minutes and hours as people do', () => {
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(4830)).toBe('1 h 21 min');
    expect(formatDuration(-1)).toBe('–');
  });
});

// The formatters stand in for Intl (format.ts says why): they must write exactly what it writes.
describe('formatting without Intl', () => {
  // One formatter per number of decimals: constructing an Intl.NumberFormat costs ~60 µs, which
  // for thousands of values was most of this test's time.
  const intl = [0, 1, 2, 3].map((digits) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }));

  /** The double next to `value` (> 0) towards +∞ (by = 1) or 0 (by = -1): one unit in the last place. */
  const bits = new DataView(new ArrayBuffer(8));
  const adjacent = (value: number, by: 1 | -1) => {
    bits.setFloat64(0, value);
    bits.setBigUint64(0, bits.getBigUint64(0) + BigInt(by));
    return bits.getFloat64(0);
  };

  /** Every value where rounding is decided: a decimal tie at each rounding position, and the doubles beside it. */
  function roundingBoundaries(): number[] {
    const values: number[] = [];
    // Whole parts that carry into a new digit or a new thousands group when rounded up, and plain ones.
    const wholes = ['0', '1', '2', '9', '10', '99', '999', '1234', '99999', '999999', '123456789', '999999999999'];
    for (let decimals = 0; decimals <= 3; decimals++) {
      // The kept decimals: none rounding up carries through them (9s), or a plain digit, or zeros.
      const kept = ['0', '4', '9'].map((digit) => digit.repeat(decimals));
      for (const whole of wholes) {
        for (const fraction of kept) {
          const tie = Number(`${whole}.${fraction}5`); // its shortest decimal is exactly this tie
          values.push(tie, adjacent(tie, 1), adjacent(tie, -1));
        }
      }
    }
    return values;
  }

  /** Each order of magnitude a double's decimal point can fall at, from far below the shown decimals to beyond 1e21. */
  function magnitudes(): number[] {
    const values: number[] = [];
    for (let exponent = -10; exponent <= 22; exponent++) {
      for (const mantissa of ['1', '1.5', '2.4999', '5.55555', '9.87654321', '9.999999']) values.push(Number(`${mantissa}e${exponent}`));
    }
    return values;
  }

  /** A fixed pseudo-random sample (Park–Miller, seed 7): values of every scale, and three-decimal values full of ties. */
  function seededSample(count: number): number[] {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const values: number[] = [];
    for (let i = 0; i < count; i++) {
      values.push((random() - 0.3) * 10 ** Math.floor(random() * 12 - 4));
      values.push(Math.round(random() * 100000) / 1000);
    }
    return values;
  }

  it('writes numbers exactly as Intl.NumberFormat en-US does', () => {
    const edges = [0, -0, 0.5, 1.5, 2.5, -2.5, 1.005, 1.0049999, 0.05, 0.000049, 9.995, 99.95, 999.5, 1e-7, 5e-324,
      123456789.125, 1e15 + 0.5, 1e21, 1.7976931348623157e308, NaN, Infinity, -Infinity, -0.4, 1615506];
    const positive = [...roundingBoundaries(), ...magnitudes()];
    const values = [...edges, ...positive, ...positive.map((value) => -value), ...seededSample(1000)];
    expect(values.length).toBeGreaterThan(2500);
    // One assertion over all of them, listing every mismatch (thousands of expect calls took seconds).
    const mismatches: string[] = [];
    for (const digits of [0, 1, 2, 3]) {
      for (const value of values) {
        const ours = formatNumber(value, digits);
        const theirs = intl[digits]!.format(value);
        if (ours !== theirs) mismatches.push(`${value} to ${digits}: ${ours} (Intl: ${theirs})`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('writes dates exactly as Intl.DateTimeFormat en-GB does', () => {
    const intlDate = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit' });
    for (let month = 0; month < 12; month++) {
      for (const [day, hour, minute] of [[1, 0, 0], [9, 9, 5], [28, 12, 30], [15, 23, 59]] as const) {
        const date = new Date(2026, month, day, hour, minute, 41);
        expect(formatDateTime(date.toISOString())).toBe(intlDate.format(date));
        expect(formatDayMonth(date)).toBe(date.toLocaleDateString('en-GB', { day: '2-digit', month: 'short' }));
      }
      const key = `2026-${String(month + 1).padStart(2, '0')}`;
      expect(formatMonth(key)).toBe(
        new Date(Date.UTC(2026, month, 1)).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' }),
      );
    }
    expect(formatDateTime('not a date')).toBe('not a date');
    expect(formatDateTime(null)).toBe('–');
  });

  it('is the only formatting the app does: no source calls Intl, toLocale… or localeCompare', () => {
    const sources = import.meta.glob(['/src/**/*.{ts,tsx}', '!/src/**/*.test.{ts,tsx}', '!/src/testing/**'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    const callers = Object.entries(sources)
      .filter(([, text]) => /\bIntl\.\w+\(|\.toLocale\w*\(|\.localeCompare\(/.test(String(text)))
      .map(([path]) => path);
    expect(callers).toEqual([]);
  });
});
