import { formatNumber } from '@/utils/format';
import type { ReportMethod, ReportRun } from '../types';
import { DataTable } from '@/components/data-table';
import { StandInTag } from '@/components/stand-in';

/** Key facts of a link profile or measurement, e.g. "delay 50 ms · loss 1 %". */
export function describeLink(values: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    parts.push(`${key.replace(/_/g, ' ')} ${String(value)}`);
  }
  return parts.length ? parts.join(' · ') : '—';
}

function fingerprintLine(run: ReportRun): string {
  const fp = run.fingerprint as Record<string, unknown>;
  const facts = ['platform', 'model', 'os_version', 'runner_version', 'probe_version']
    .map((key) => fp[key])
    .filter((value): value is string | number => typeof value === 'string' || typeof value === 'number');
  return facts.length ? facts.join(' · ') : '—';
}

/** How the numbers were made: arms, devices and their fingerprints, network profiles applied
 * and measured, sample counts, and the spec without anything private. */
export function ReportMethodSection({ method }: { method: ReportMethod }) {
  return (
    <section className="card report-method" aria-labelledby="method-heading">
      <h2 id="method-heading">Method</h2>
      <p className="muted">
        {formatNumber(method.sample_count)} samples stored (warm-up requests included) across{' '}
        {method.runs.length} run{method.runs.length === 1 ? '' : 's'}; baseline arm <strong>{method.baseline_arm}</strong>.
      </p>
      <h3>Arms</h3>
      <DataTable label="Arms" columns={['Label', 'Protocol', 'Connection', 'Endpoint']}>
        <tbody>
          {method.arms.map((arm) => (
            <tr key={arm.label}>
              <th scope="row">{arm.label}</th>
              <td>{arm.protocol}</td>
              <td>{arm.connection}</td>
              <td>{arm.endpoint || 'reference target'}</td>
            </tr>
          ))}
        </tbody>
      </DataTable>
      <h3>Devices and network</h3>
      {method.runs.length === 0 ? (
        <p className="muted">No run has started yet.</p>
      ) : (
        <DataTable
          label="Runs"
          columns={['Device', 'Fingerprint', 'Network profile', 'Applied', 'Measured', 'Blocks', 'Samples']}
        >
          <tbody>
            {method.runs.map((run, index) => (
              <tr key={`${run.device}-${run.network_profile}-${index}`}>
                <th scope="row">
                  {run.device}
                  <StandInTag standIn={run.stand_in} />
                </th>
                <td>{fingerprintLine(run)}</td>
                <td>{run.network_profile}</td>
                <td>{describeLink(run.network_profile_applied)}</td>
                <td>{describeLink(run.network_measured)}</td>
                <td>{run.blocks}</td>
                <td>{formatNumber(run.samples)}</td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      )}
      <details className="report-spec">
        <summary>Spec (header values, bodies and credentials removed)</summary>
        <pre>{JSON.stringify(method.spec, null, 2)}</pre>
      </details>
    </section>
  );
}
