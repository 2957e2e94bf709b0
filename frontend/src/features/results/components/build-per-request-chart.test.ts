import { describe, expect, it } from 'vitest';
import type { ComparisonResults, ResultGroup } from '@/lib/api-types';
import { perRequestChange, perRequestChart, type PerRequest } from './build-per-request-chart';

const perRequest: PerRequest = {
  names: ['00 GET /login', '01 GET /feed', 'avatar'],
  arms: {
    h2: { median_ms: [10, 20, null], p90_ms: [12, 25, null], n: [4, 4, 0], errors: [0, 0, 4] },
    h3: { median_ms: [5, 30, 8], p90_ms: [6, 33, 9], n: [4, 4, 4], errors: [0, 0, 0] },
  },
};
const group = { device: 'host', network_profile: 'none', periods: [], arms: {}, requests: {}, per_request: perRequest } as unknown as ResultGroup;
const results = { arms: ['h2', 'h3'], baseline_arm: 'h2', groups: [group] } as unknown as ComparisonResults;

describe('per-request chart', () => {
  it('draws one horizontal bar per request and arm, in list order, keeping every row its own', () => {
    const chart = perRequestChart(results, perRequest);
    expect(chart.data.map((trace) => (trace as { name: string }).name)).toEqual(['h2', 'h3']);
    const h3 = chart.data[1] as { x: (number | null)[]; y: string[]; orientation: string };
    expect(h3.orientation).toBe('h');
    expect(h3.y).toEqual(['00 GET /login', '01 GET /feed', '2 avatar']);
    expect(h3.x).toEqual([5, 30, 8]);
    expect(chart.layout.yaxis?.autorange).toBe('reversed');
  });

  it('gives each request its change against the baseline, none where the baseline has no median', () => {
    expect(perRequestChange(perRequest, 'h3', 'h2')).toEqual([-50, 50, null]);
  });
});
