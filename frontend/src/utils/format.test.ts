import { describe, expect, it } from 'vitest';
import { formatMs, formatPercent, formatRate, pickRateUnit } from './format';

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
