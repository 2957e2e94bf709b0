import { useMemo } from 'react';
import type { ComparisonResults } from '@/lib/api-types';
import { formatMs, formatPercent } from '@/utils/format';
import { perRequestChange, perRequestChart, type PerRequest } from './build-per-request-chart';
import { ChartCard } from './chart-card';
import { ArmSwatch } from './arm-swatch';
import { DataTable } from '@/components/data-table';

type PerRequestViewProps = { results: ComparisonResults; perRequest: PerRequest; subtitle: string };

/** A request list (a HAR replay, an app's API calls): every listed request on its own. */
export function PerRequestView({ results, perRequest, subtitle }: PerRequestViewProps) {
  const chart = useMemo(() => perRequestChart(results, perRequest), [results, perRequest]);
  const arms = results.arms.filter((arm) => perRequest.arms[arm]);
  const challengers = arms.filter((arm) => arm !== results.baseline_arm);
  const changes = useMemo(
    () => Object.fromEntries(challengers.map((arm) => [arm, perRequestChange(perRequest, arm, results.baseline_arm)])),
    [challengers, perRequest, results.baseline_arm],
  );
  return (
    <>
      <ChartCard
        title="Median time of each listed request"
        subtitle={`${subtitle} · ${perRequest.names.length} requests, in list order`}
        testId="chart-per-request"
        chart={chart}
        note="Hover a bar for its p90, request count and errors."
        wide
      />
      <section className="card">
        <h3>Per request</h3>
        <p className="chart-subtitle">Median per arm; change of each arm against {results.baseline_arm}.</p>
        <DataTable
          label="Median time of each listed request per arm"
          columns={[
            'Request',
            ...arms.map((arm) => ({
              label: arm,
              content: (
                <>
                  <ArmSwatch arms={results.arms} arm={arm} />
                  {arm}
                </>
              ),
            })),
            ...challengers.map((arm) => `${arm} vs ${results.baseline_arm}`),
            'Errors',
          ]}
          compact={false}
          numeric
        >
          <tbody>
            {perRequest.names.map((name, index) => {
              const errors = arms.reduce((sum, arm) => sum + (perRequest.arms[arm]?.errors[index] ?? 0), 0);
              return (
                <tr key={`${index}-${name}`}>
                  <th scope="row">{name}</th>
                  {arms.map((arm) => (
                    <td key={arm}>{formatMs(perRequest.arms[arm]?.median_ms[index] ?? null)}</td>
                  ))}
                  {challengers.map((arm) => (
                    <td key={`change-${arm}`}>{formatPercent(changes[arm]?.[index] ?? null)}</td>
                  ))}
                  <td className={errors > 0 ? 'text-error' : undefined}>{errors}</td>
                </tr>
              );
            })}
          </tbody>
        </DataTable>
      </section>
    </>
  );
}
