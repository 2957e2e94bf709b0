import { describe, expect, it } from 'vitest';
import { gateMetricOf } from './api-types';

describe('gateMetricOf', () => {
  it('reads spec.gate.metric, total_ms when the spec has no gate', () => {
    expect(gateMetricOf({ gate: { metric: 'ttfb_ms', margin_pct: 5 } })).toBe('ttfb_ms');
    expect(gateMetricOf({ gate: { margin_pct: 5 } })).toBe('total_ms');
    expect(gateMetricOf({ gate: null })).toBe('total_ms');
    expect(gateMetricOf({ name: 'x' })).toBe('total_ms');
    expect(gateMetricOf(undefined)).toBe('total_ms');
  });
});
