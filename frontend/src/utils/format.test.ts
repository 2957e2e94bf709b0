import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatChangePct,
  formatChangeWithCi,
  formatMs,
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
    expect(formatSigned(1.5, 1)).toBe('1.5');
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
