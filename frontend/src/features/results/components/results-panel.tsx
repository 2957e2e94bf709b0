import { useMemo, useState } from 'react';
import { filterResults, periodsOf, type ResultFilters } from './filter-results';
import { useResults } from '../api/get-results';
import { hasVerdict, useVerdict } from '../api/get-verdict';
import type { Analysis, ComparisonResults, ComparisonVerdict, ResultGroup } from '@/lib/api-types';
import { Spinner } from '@/components/spinner';
import { formatDateTime, formatMs, formatNumber, formatPercent } from '@/utils/format';
import {
  averageChart,
  concurrencyOf,
  gainChart,
  groupArms,
  meanGain,
  medianChart,
  periodTrialsChart,
  seriesChart,
  seriesChartNote,
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
import { BaselinePicker } from './baseline-picker';
import { ArmSwatch } from './arm-swatch';
import { GateNote } from './gate-note';
import { DataTable } from '@/components/data-table';

type ResultsPanelProps = {
  comparisonId: string;
  live: boolean;
  /** A shared report (no session): nothing that asks the signed-in API, such as the baseline picker. */
  shared?: boolean;
};

export function ResultsPanel({ comparisonId, live, shared = false }: ResultsPanelProps) {
  const results = useResults(comparisonId, live);
  const finished = results.data?.status === 'finished';
  // The CI gate's verdict (the server's overall outcome), once the comparison has one: finished,
  // or cancelled (a partial verdict on the blocks stored before the cancel; the page says so).
  const judged = results.data !== undefined && hasVerdict(results.data.status);
  const verdict = useVerdict(comparisonId, judged);
  const [groupIndex, setGroupIndex] = useState(0);
  // Arms hidden by the filter (so an arm that appears while results stream in is shown).
  const [hiddenArms, setHiddenArms] = useState<string[]>([]);
  const [periodRange, setPeriodRange] = useState<[number, number] | null>(null);
  const filtered = useMemo(
    () =>
      results.data
        ? filterResults(results.data, {
            arms: results.data.arms.filter((arm) => !hiddenArms.includes(arm)),
            periods: periodRange,
          } satisfies ResultFilters)
        : undefined,
    [results.data, hiddenArms, periodRange],
  );

  if (results.isPending) return <Spinner label="Loading results" />;
  if (results.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not load results: {results.error.message}
      </p>
    );
  }
  const { groups } = filtered ?? results.data;
  if (groups.length === 0) {
    return (
      <div className="empty-state card">
        <p>{live ? 'Charts appear here as soon as the first blocks are analysed.' : 'This comparison has no results.'}</p>
      </div>
    );
  }
  const group = groups[Math.min(groupIndex, groups.length - 1)] as ResultGroup;
  const devices = [...new Set(groups.map((candidate) => candidate.device))];
  const profiles = [...new Set(groups.map((candidate) => candidate.network_profile))];
  // The group of that device and profile; when that pair was not measured, the first group of the one just picked.
  const pickGroup = (device: string, profile: string) => {
    const exact = groups.findIndex((g) => g.device === device && g.network_profile === profile);
    const changedDevice = device !== group.device;
    const fallback = groups.findIndex((g) => (changedDevice ? g.device === device : g.network_profile === profile));
    setGroupIndex(exact >= 0 ? exact : Math.max(0, fallback));
  };
  const analysis = filtered?.analysis ?? null;
  const shown = filtered ?? results.data;
  const periods = periodsOf(results.data);
  const gateMetric = verdict.data?.gate.metric ?? 'total_ms';

  return (
    <div className="results">
      {/* A cancelled comparison's results are final, only partial: the comparison page says so. */}
      {results.data.status !== 'finished' && results.data.status !== 'cancelled' && (
        <p className="alert alert-info" role="status">
          Partial results: analysis is not finished yet, charts update as blocks complete.
        </p>
      )}
      {results.data.samples_removed && (
        <p className="alert alert-info" role="status" data-testid="samples-removed">
          The samples of this comparison were removed by the {results.data.samples_removed.retention_days}-day sample
          retention on {formatDateTime(results.data.samples_removed.removed_at)}. The charts and verdict below are its
          stored analysis; its samples can no longer be downloaded or analysed again.
        </p>
      )}
      {judged && verdict.data && <VerdictBanner verdict={verdict.data} arms={results.data.arms} />}
      {finished && !shared && <BaselinePicker results={results.data} />}
      <StacksPanel results={results.data} />
      <div className="filter-bar card" role="group" aria-label="Filter the charts">
      {devices.length > 1 && (
        <div className="field">
          <label htmlFor="results-device">Device</label>
          <select id="results-device" value={group.device} onChange={(event) => pickGroup(event.target.value, group.network_profile)}>
            {devices.map((device) => (
              <option key={device} value={device}>
                {device}
              </option>
            ))}
          </select>
        </div>
      )}
      {profiles.length > 1 && (
        <div className="field">
          <label htmlFor="results-profile">Network profile</label>
          <select id="results-profile" value={group.network_profile} onChange={(event) => pickGroup(group.device, event.target.value)}>
            {profiles.map((profile) => (
              <option key={profile} value={profile}>
                {profile}
                {groups.some((g) => g.device === group.device && g.network_profile === profile) ? '' : ' (other device)'}
              </option>
            ))}
          </select>
        </div>
      )}
        <fieldset className="field chip-group">
          <legend>Arms</legend>
          {results.data.arms.map((arm) => (
            <label key={arm} className="chip">
              <input
                type="checkbox"
                checked={!hiddenArms.includes(arm)}
                onChange={() =>
                  setHiddenArms((hidden) => (hidden.includes(arm) ? hidden.filter((a) => a !== arm) : [...hidden, arm]))
                }
              />
              <ArmSwatch arms={results.data.arms} arm={arm} />
              <span>{arm}</span>
            </label>
          ))}
        </fieldset>
        {periods.length > 1 && (
          <>
            <div className="field">
              <label htmlFor="results-period-from">Periods from</label>
              <select
                id="results-period-from"
                value={periodRange?.[0] ?? periods[0]}
                onChange={(event) => {
                  const from = Number(event.target.value);
                  const to = Math.max(from, periodRange?.[1] ?? (periods.at(-1) as number));
                  setPeriodRange([from, to]);
                }}
              >
                {periods.map((period) => (
                  <option key={period} value={period}>
                    {period}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="results-period-to">to</label>
              <select
                id="results-period-to"
                value={periodRange?.[1] ?? periods.at(-1)}
                onChange={(event) => {
                  const to = Number(event.target.value);
                  const from = Math.min(to, periodRange?.[0] ?? (periods[0] as number));
                  setPeriodRange([from, to]);
                }}
              >
                {periods.map((period) => (
                  <option key={period} value={period}>
                    {period}
                  </option>
                ))}
              </select>
            </div>
          </>
        )}
        {(hiddenArms.length > 0 || periodRange !== null) && (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => {
              setHiddenArms([]);
              setPeriodRange(null);
            }}
          >
            Show everything
          </button>
        )}
      </div>
      {hiddenArms.length === results.data.arms.length ? (
        <p className="empty-state card">No arm is selected: tick one under Arms to draw the charts.</p>
      ) : (
        <>
          {judged && analysis && <EffectTable analysis={analysis} arms={results.data.arms} gateMetric={gateMetric} />}
          <GroupResults results={shown} group={group} analysis={analysis} verdict={judged ? verdict.data : undefined} />
          <DevicesView results={shown} analysis={analysis} profile={group.network_profile} />
          <ProfilesView results={shown} analysis={analysis} device={group.device} />
        </>
      )}
    </div>
  );
}

type GroupResultsProps = {
  results: ComparisonResults;
  group: ResultGroup;
  analysis: Analysis | null;
  /** The CI gate's verdict: the series charts and the request table say when it judged the other view. */
  verdict: ComparisonVerdict | undefined;
};

function GroupResults({ results, group, analysis, verdict }: GroupResultsProps) {
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
  const [trialsPeriod, setTrialsPeriod] = useState<number | null>(null);
  const period = trialsPeriod !== null && group.periods.includes(trialsPeriod) ? trialsPeriod : group.periods[0];
  const trials = useMemo(
    () => (period === undefined ? null : periodTrialsChart(results, group, period)),
    [results, group, period],
  );

  return (
    <>
      {isSeries && <GateNote verdict={verdict} shown="series" />}
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
          note={challengers.length === 0 ? 'Only the baseline arm is measured (or left by the filters): there is nothing to compare.' : undefined}
        />
        <ChartCard
          title={`Series time of every repetition, ${concurrency}`}
          subtitle={subtitle}
          testId="chart-series"
          chart={charts.series}
          note={seriesChartNote(charts.series)}
          wide
        />
        {trials && period !== undefined && (
          <ChartCard
            title={`Repetitions of one period, ${concurrency}`}
            subtitle={subtitle}
            testId="chart-period-trials"
            chart={trials}
            wide
            note={
              <label className="field-inline">
                Period (requests per series){' '}
                <select value={period} onChange={(event) => setTrialsPeriod(Number(event.target.value))}>
                  {group.periods.map((candidate) => (
                    <option key={candidate} value={candidate}>
                      {candidate}
                    </option>
                  ))}
                </select>
              </label>
            }
          />
        )}
      </div>
      )}
      {analysis && <AnalysisCharts results={results} analysis={analysis} group={group} />}
      <RequestTable results={results} group={group} verdict={verdict} />
      {group.per_request && (
        <PerRequestView results={results} perRequest={group.per_request} subtitle={subtitle} />
      )}
    </>
  );
}

export function groupSubtitle(group: Pick<ResultGroup, 'device' | 'network_profile'>): string {
  return `${group.device} · network profile: ${group.network_profile}`;
}

type RequestTableProps = { results: ComparisonResults; group: ResultGroup; verdict: ComparisonVerdict | undefined };

function RequestTable({ results, group, verdict }: RequestTableProps) {
  const arms = groupArms(results, group).filter((arm) => group.requests[arm]);
  if (arms.length === 0) return null;
  return (
    <section className="card">
      <h3>Individual requests</h3>
      <p className="chart-subtitle">{groupSubtitle(group)}</p>
      <GateNote verdict={verdict} shown="requests" />
      <DataTable
        label="Request latency per arm"
        columns={['Arm', 'Requests', 'Median', 'p90', 'p95', 'Errors']}
        compact={false}
        numeric
      >
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
                <td>{formatNumber(stats.n)}</td>
                <td>{formatMs(stats.median_ms)}</td>
                <td>{formatMs(stats.p90_ms)}</td>
                <td>{formatMs(stats.p95_ms)}</td>
                <td className={stats.errors > 0 ? 'text-error' : undefined}>{stats.errors}</td>
              </tr>
            );
          })}
        </tbody>
      </DataTable>
    </section>
  );
}
