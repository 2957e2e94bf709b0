import { resultsFixture, verdictFixture } from '@/testing/fixtures';
import type { PublicReport, ShareLink } from '../types';

export const COMPARISON_ID = resultsFixture.comparison;

export function shareLink(overrides: Partial<ShareLink> = {}): ShareLink {
  return {
    id: '7c0e8a55-1111-4a4a-9b9b-000000000001',
    prefix: 'lls_AbCdEfGh',
    comparison: { id: COMPARISON_ID, name: 'Mid image series' },
    created_by: 'ada',
    created_at: '2026-11-20T10:00:00Z',
    expires_at: null,
    revoked_at: null,
    last_opened_at: null,
    open_count: 0,
    state: 'active',
    ...overrides,
  };
}

export const publicReportFixture: PublicReport = {
  name: 'Mid image series on Pixel 8',
  tags: { branch: 'main' },
  status: 'finished',
  preset: 'mid-image-series',
  created_at: '2026-11-20T09:00:00Z',
  started_at: '2026-11-20T09:01:00Z',
  finished_at: '2026-11-20T09:30:00Z',
  generated_at: '2026-11-21T08:00:00Z',
  verdict_line: 'Improvement: h2 (series time) vs https-h1, Pixel 8 / lte: median −40 %',
  results: resultsFixture,
  verdict: verdictFixture,
  method: {
    spec: { name: 'Mid image series on Pixel 8', workload: { kind: 'series' } },
    baseline_arm: resultsFixture.baseline_arm,
    arms: resultsFixture.arms.map((label) => ({ label, protocol: label, connection: 'warm', endpoint: '' })),
    runs: [
      {
        device: 'Pixel 8',
        platforms: ['android'],
        status: 'done',
        network_profile: 'lte',
        network_profile_applied: { delay_ms: 50 },
        network_measured: { rtt_ms: 101.2 },
        fingerprint: { platform: 'android', model: 'Pixel 8', os_version: '14' },
        stand_in: null,
        blocks: 10,
        samples: 1200,
      },
    ],
    sample_count: 1200,
  },
};
