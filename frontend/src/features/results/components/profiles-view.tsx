import { useMemo, useState } from 'react';
import type { Analysis, ComparisonResults } from '@/lib/api-types';
import { hasSeries, profilesChart, profilesOf, profilesSeriesChart } from './build-analysis-charts';
import { ChartCard } from './chart-card';

type ProfilesViewProps = { results: ComparisonResults; analysis: Analysis | null; device: string };

/** One arm on every network profile side by side; only for comparisons run on several profiles. */
export function ProfilesView({ results, analysis, device }: ProfilesViewProps) {
  const [chosen, setChosen] = useState<string | null>(null);
  const arms = results.arms;
  const arm = chosen && arms.includes(chosen) ? chosen : (arms[0] ?? '');
  const profiles = profilesOf(results);
  const charts = useMemo(
    () => ({
      medians: profilesChart(results, analysis, arm, device),
      series: hasSeries(results, device) ? profilesSeriesChart(results, arm, device) : null,
    }),
    [results, analysis, arm, device],
  );
  if (profiles.length < 2 || !arm) return null;
  const subtitle = `${arm} on ${device} · network profiles: ${profiles.join(', ')}`;

  return (
    <section className="profiles-view" aria-label="Compare across network profiles">
      <div className="section-header">
        <h2>Compare across network profiles</h2>
        <div className="field field-inline">
          <label htmlFor="profiles-arm">Arm</label>
          <select id="profiles-arm" value={arm} onChange={(event) => setChosen(event.target.value)}>
            {arms.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
                {candidate === results.baseline_arm ? ' (baseline)' : ''}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="chart-grid">
        <ChartCard
          title="Median request time per network profile"
          subtitle={subtitle}
          testId="chart-profiles"
          chart={charts.medians}
        />
        {charts.series && (
          <ChartCard
            title={`Average series time per period, by profile, ${results.groups[0]?.concurrency ?? 'sequential'}`}
            subtitle={subtitle}
            testId="chart-profiles-series"
            chart={charts.series}
            note="Log scale: profiles can differ by orders of magnitude."
          />
        )}
      </div>
    </section>
  );
}
