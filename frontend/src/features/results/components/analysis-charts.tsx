import { useMemo } from 'react';
import type { Analysis, ComparisonResults, ResultGroup } from '@/lib/api-types';
import { formatMs } from '@/utils/format';
import {
  delayAddedChart,
  delayMeasuredChart,
  distributionChart,
  firstRestChart,
  groupKeyOf,
  handshakeCosts,
  hasDelaySweep,
  hasDistribution,
  hasFirstVsRest,
  hasPayloadSweep,
  payloadChart,
} from './build-analysis-charts';
import { ChartCard } from './chart-card';
import { hasPhases, phaseChart } from './build-phase-charts';

type AnalysisChartsProps = { results: ComparisonResults; analysis: Analysis; group: ResultGroup };

/** The charts of the other presets' sections; each appears only when its section has data for the group. */
export function AnalysisCharts({ results, analysis, group }: AnalysisChartsProps) {
  const subtitle = `${group.device} · network profile: ${group.network_profile}`;
  const charts = useMemo(() => {
    const key = groupKeyOf(group);
    return {
      delayMeasured: hasDelaySweep(analysis, key) ? delayMeasuredChart(results, analysis, key) : null,
      delayAdded: hasDelaySweep(analysis, key) ? delayAddedChart(results, analysis, key) : null,
      // A series workload's objects (e.g. 24 images) are not a designed size sweep.
      payload: group.periods.length === 0 && hasPayloadSweep(analysis, key) ? payloadChart(results, analysis, key) : null,
      firstRest: hasFirstVsRest(analysis, key) ? firstRestChart(results, analysis, key) : null,
      handshake: handshakeCosts(analysis, key),
      distribution: hasDistribution(analysis, key) ? distributionChart(results, analysis, key) : null,
      phases: hasPhases(analysis, key) ? phaseChart(results, analysis, key) : null,
    };
  }, [results, analysis, group]);

  if (!charts.delayMeasured && !charts.payload && !charts.firstRest && !charts.distribution && !charts.phases) {
    return null;
  }
  return (
    <div className="chart-grid">
      {charts.delayAdded && (
        <ChartCard
          title="Added latency vs known server delay"
          subtitle={subtitle}
          testId="chart-delay-added"
          chart={charts.delayAdded}
          note="Median of measured − known delay per step: what the client, OS and network add on top of the server's wait."
        />
      )}
      {charts.delayMeasured && (
        <ChartCard
          title="Measured vs known server delay"
          subtitle={subtitle}
          testId="chart-delay-measured"
          chart={charts.delayMeasured}
          note="Dotted: measured = known (nothing added)."
        />
      )}
      {charts.payload && (
        <ChartCard
          title="Payload sweep: latency ÷ RTT by response size"
          subtitle={subtitle}
          testId="chart-payload"
          chart={charts.payload}
          wide
          note="Median latency as a multiple of the block's baseline RTT. Ringed sizes are stalls: slower than the RTT, handshakes, slow start and the path's rate explain, or slower than a larger size (the Nagle / delayed-ACK class of bug); hover for the expected time and why."
        />
      )}
      {charts.firstRest && (
        <ChartCard
          title="First request vs the rest"
          subtitle={subtitle}
          testId="chart-first-rest"
          chart={charts.firstRest}
          note={
            charts.handshake.length
              ? `Handshake cost (first − rest, median): ${charts.handshake.map((h) => `${h.arm} ${formatMs(h.ms)}`).join(' · ')}`
              : undefined
          }
        />
      )}
      {charts.phases && (
        <ChartCard
          title="Phase breakdown per arm"
          subtitle={subtitle}
          testId="chart-phases"
          chart={charts.phases}
          note="Medians of each phase, so they don't add up to the median total (◆): DNS, connect and TLS only occur on new connections. Hover a segment for how many requests had it."
        />
      )}
      {charts.distribution && (
        <ChartCard
          title="Request latency distribution"
          subtitle={subtitle}
          testId="chart-distribution"
          chart={charts.distribution}
          note="Cumulative fraction of requests through min, median (with its 95 % CI), p90, p95, p99 and max."
        />
      )}
    </div>
  );
}
