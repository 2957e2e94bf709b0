import { useMemo, useState } from 'react';
import { useResults } from '../api/get-results';
import { useVerdict } from '../api/get-verdict';
import type { Analysis, ComparisonResults, ResultGroup } from '@/lib/api-types';
import { Spinner } from '@/components/spinner';
import { formatMs, formatPercent } from '@/utils/format';
import {
  averageChart,
  concurrencyOf,
  gainChart,
  groupArms,
  meanGain,
  medianChart,
  seriesChart,
  seriesTimeMeaning,
  throughputChart,
} from './build-charts';
import { ChartCard } from './chart-card';
import { EffectTable, VerdictBanner } from './verdict';
import { AnalysisCharts } from './analysis-charts';
import { ProfilesView } from './profiles-view';
import { DevicesView } from './devices-view';
import { PerRequestView } from './per-request';
import { StacksPanel } from './stacks-panel';
import { ArmSwatch } from './arm-swatch';

type ResultsPanelProps = { comparisonId: string; live: boolean };

export function ResultsPanel({ comparisonId, live }: ResultsPanelProps) {
  const results = useResults(comparisonId, live);
  const finished = results.data?.status === 'finished';
  // The CI gate's verdict (the server's overall outcome), once the comparison is finished.
  const verdict = useVerdict(comparisonId, finished);
  const [groupIndex, setGroupIndex] = useState(0);

  if (results.isPending) return <Spinner label="Loading results" />;
  if (results.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not load results: {results.error.message}
      </p>
    );
  }
  const { groups } = results.data;
  if (groups.length === 0) {
    return (
      <div className="empty-state card">
        <p>{live ? 'Charts appear here as soon as the first blocks are analysed.' : 'This comparison has no results.'}</p>
      </div>
    );
  }
  const group = groups[Math.min(groupIndex, groups.length - 1)] as ResultGroup;
  const analysis = results.data.analysis ?? null;
  const gateMetric = verdict.data?.gate.metric ?? 'total_ms';

  return (
    <div className="results">
      {results.data.status !== 'finished' && (
        <p className="alert alert-info" role="status">
          Partial results: analysis is not finished yet, charts update as blocks complete.
        </p>
      )}
      {finished && verdict.data && <VerdictBanner verdict={verdict.data} arms={results.data.arms} />}
      {finished && analysis && (
        <EffectTable analysis={analysis} arms={results.data.arms} gateMetric={gateMetric} />
      )}
      <StacksPanel results={results.data} />
      {groups.length > 1 && (
        <div className="field field-inline">
          <label htmlFor="results-group">Device and network</label>
          <select
            id="results-group"
            value={Math.min(groupIndex, groups.length - 1)}
            onChange={(event) => setGroupIndex(Number(event.target.value))}
          >
            {groups.map((candidate, index) => (
              <option key={`${candidate.device}/${candidate.network_profile}`} value={index}>
                {candidate.device} · {candidate.network_profile}
              </option>
            ))}
          </select>
        </div>
      )}
      <GroupResults results={results.data} group={group} analysis={analysis} />
      <DevicesView results={results.data} analysis={analysis} profile={group.network_profile} />
      <ProfilesView results={results.data} analysis={analysis} device={group.device} />
    </div>
  );
}

type GroupResultsProps = { results: ComparisonResults; group: ResultGroup; analysis: Analysis | null };

function GroupResults({ results, group, analysis }: GroupResultsProps) {
  const subtitle = groupSubtitle(group);
  const isSeries = group.periods.length > 0;
  const charts = useMemo(
    () => ({
      average: averageChart(results, group),
      median: medianChart(results, group),
      throughput: throughputChart(results, group),
      gain: gainChart(results, group),
      series: seriesChart(results, group),
    }),
    [results, group],
  );
  const arms = groupArms(results, group);
  const challengers = arms.filter((arm) => arm !== results.baseline_arm);
  const concurrency = concurrencyOf(group);

  return (
    <>
      {isSeries && challengers.length > 0 && (
        <ul className="stat-strip" aria-label="Mean gain over the baseline arm">
          {challengers.map((arm) => (
            <li key={arm} className="stat">
              <span className="stat-label">
                <ArmSwatch arms={results.arms} arm={arm} />
                {arm} vs {results.baseline_arm}
              </span>
              <span className="stat-value">{formatPercent(meanGain(group, arm))}</span>
              <span className="stat-hint">mean gain across periods</span>
            </li>
          ))}
        </ul>
      )}
      {isSeries && (
      <div className="chart-grid">
        <ChartCard
          title={`Average series time, ${concurrency}`}
          subtitle={subtitle}
          testId="chart-avg"
          chart={charts.average}
          note={seriesTimeMeaning(group)}
        />
        <ChartCard
          title={`Median series time, ${concurrency}`}
          subtitle={subtitle}
          testId="chart-median"
          chart={charts.median}
        />
        <ChartCard
          title="Throughput"
          subtitle={subtitle}
          testId="chart-throughput"
          chart={charts.throughput}
          note="Bytes delivered per second of series time; units scale to the largest value."
        />
        <ChartCard
          title={`Percentage gain over ${results.baseline_arm}, ${concurrency}`}
          subtitle={subtitle}
          testId="chart-gain"
          chart={charts.gain}
          note={challengers.length === 0 ? 'Only the baseline arm was measured: there is nothing to compare.' : undefined}
        />
        <ChartCard
          title={`Series time of every repetition, ${concurrency}`}
          subtitle={subtitle}
          testId="chart-series"
          chart={charts.series}
          wide
        />
      </div>
      )}
      {analysis && <AnalysisCharts results={results} analysis={analysis} group={group} />}
      <RequestTable results={results} group={group} />
      {group.per_request && (
        <PerRequestView results={results} perRequest={group.per_request} subtitle={subtitle} />
      )}
    </>
  );
}

export function groupSubtitle(group: Pick<ResultGroup, 'device' | 'network_profile'>): string {
  return `${group.device} · network profile: ${group.network_profile}`;
}

function RequestTable({ results, group }: { results: ComparisonResults; group: ResultGroup }) {
  const arms = groupArms(results, group).filter((arm) => group.requests[arm]);
  if (arms.length === 0) return null;
  return (
    <section className="card">
      <h3>Individual requests</h3>
      <p className="chart-subtitle">{groupSubtitle(group)}</p>
      <div className="table-wrap">
        <table className="table table-numeric" aria-label="Request latency per arm">
          <thead>
            <tr>
              <th scope="col">Arm</th>
              <th scope="col">Requests</th>
              <th scope="col">Median</th>
              <th scope="col">p90</th>
              <th scope="col">p95</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {arms.map((arm) => {
              const stats = group.requests[arm];
              if (!stats) return null;
              return (
                <tr key={arm}>
                  <th scope="row">
                    <ArmSwatch arms={results.arms} arm={arm} />
                    {arm}
                    {arm === results.baseline_arm && <span className="tag">baseline</span>}
                  </th>
                  <td>{stats.n.toLocaleString('en-US')}</td>
                  <td>{formatMs(stats.median_ms)}</td>
                  <td>{formatMs(stats.p90_ms)}</td>
                  <td>{formatMs(stats.p95_ms)}</td>
                  <td className={stats.errors > 0 ? 'text-error' : undefined}>{stats.errors}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
