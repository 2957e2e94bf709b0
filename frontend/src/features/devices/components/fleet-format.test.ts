import { describe, expect, it } from 'vitest';
import { formatAge, formatBattery, formatTemperature } from './fleet-format';

describe('fleet formatting', () => {
  const now = Date.parse('2025-11-20T10:00:30Z');

  it('says how long ago a heartbeat was', () => {
    expect(formatAge('2025-11-20T10:00:18Z', now)).toBe('12 s ago');
    expect(formatAge('2025-11-20T09:56:00Z', now)).toBe('4 min ago');
    expect(formatAge('2025-11-20T07:00:00Z', now)).toBe('3 h ago');
    expect(formatAge('2025-11-18T07:00:00Z', now)).toContain('18 Nov 2025');
    expect(formatAge(null, now)).toBe('never');
  });

  it('shows battery with charging, and temperature with a thermal status worth mentioning', () => {
    expect(formatBattery(86.6, true)).toBe('87 % · charging');
    expect(formatBattery(32, false)).toBe('32 %');
    expect(formatBattery(null, null)).toBe('–');
    expect(formatTemperature(31.46, 'none')).toBe('31.5 °C');
    expect(formatTemperature(38.5, 'moderate')).toBe('38.5 °C · moderate');
    expect(formatTemperature(null, '')).toBe('–');
  });
});
