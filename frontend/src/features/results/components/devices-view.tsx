import { useMemo } from 'react';
import type { Analysis, ComparisonResults } from '@/lib/api-types';
import { devicesChart, devicesOn } from './build-phase-charts';
import { ChartCard } from './chart-card';

type DevicesViewProps = { results: ComparisonResults; analysis: Analysis | null; profile: string };

/** Per-device small multiples: only for comparisons run on several devices. */
export function DevicesView({ results, analysis, profile }: DevicesViewProps) {
  const devices = devicesOn(results, profile);
  const chart = useMemo(() => devicesChart(results, analysis, profile), [results, analysis, profile]);
  if (devices.length < 2) return null;
  return (
    <section className="devices-view" aria-label="Compare across devices">
      <div className="section-header">
        <h2>Compare across devices</h2>
      </div>
      <div className="chart-grid">
        <ChartCard
          title="Median request time per arm, by device"
          subtitle={`${devices.length} devices · network profile: ${profile}`}
          testId="chart-devices"
          chart={chart}
          wide
          note="One panel per device on a shared scale. Hover a bar for its p90 and request count."
        />
      </div>
    </section>
  );
}
