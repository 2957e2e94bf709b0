import type { Run, RunArtifact } from '@/lib/api-types';
import { formatBytes } from '@/utils/format';
import { clientStackEntries, serverStackEntries, stackEntriesText } from '@/utils/stacks';
import { DataTable } from '@/components/data-table';
import { StandInTag } from '@/components/stand-in';

/** A comparison's runs: where each ran (device and its fingerprint), how it went, its artifacts. */
export function RunsTable({ runs }: { runs: Run[] }) {
  return (
    <DataTable label="Runs" columns={['Device', 'Network', 'Status', 'Blocks', 'Attempt', 'Artifacts']}>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-testid={`run-${run.id}`}>
            <td>
              {run.device ? (
                <>
                  {run.device_model ? `${run.device_model} ` : ''}
                  <span className={run.device_model ? 'muted small' : undefined}>{run.device}</span>
                  <StandInTag standIn={run.stand_in} />
                </>
              ) : (
                <span className="muted">not assigned</span>
              )}
              <Stacks fingerprint={run.fingerprint} />
              <Fingerprint fingerprint={run.fingerprint} />
            </td>
            <td>{run.network_profile}</td>
            <td>
              {run.status ?? 'queued'}
              {run.error_kind && <span className="tag">{run.error_kind}</span>}
              {run.error && <div className="text-error small pre-line">{run.error}</div>}
              {run.waiting_for && <div className="muted small">{run.waiting_for}</div>}
            </td>
            <td>
              {Math.min(run.next_block ?? 0, run.blocks_total)}/{run.blocks_total}
            </td>
            <td>{run.attempt ?? 1}</td>
            <td>
              <Artifacts artifacts={run.artifacts} runDevice={run.device} />
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

/** Each with its attempt; the device too when the attempt ran elsewhere than the run's device. */
function Artifacts({ artifacts, runDevice }: { artifacts: RunArtifact[]; runDevice: string | null }) {
  if (artifacts.length === 0) return <span className="muted small">none</span>;
  return (
    <ul className="artifact-list" aria-label="Artifacts">
      {artifacts.map((artifact) => (
        <li key={artifact.id}>
          <a href={artifact.download_url} download={artifact.name}>
            {artifact.name}
          </a>{' '}
          <span className="muted small">
            {formatBytes(artifact.size)} · attempt {artifact.attempt}
            {artifact.device && artifact.device !== runDevice && ` on ${artifact.device}`}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Which client measured each protocol on this run and which server answered each arm, one line each. */
function Stacks({ fingerprint }: { fingerprint: unknown }) {
  const fields = fingerprintFields(fingerprint);
  const clients = clientStackEntries(fields.client_stacks);
  const servers = serverStackEntries(fields.server_stacks);
  if (clients.length === 0 && servers.length === 0) return null;
  return (
    <div className="small stacks-line">
      <StackLines title="Client" entries={clients} />
      <StackLines title="Server" entries={servers} />
    </div>
  );
}

function StackLines({ title, entries }: { title: string; entries: [string, string][] }) {
  if (entries.length === 0) return null;
  return (
    <ul className="plain-list" aria-label={`${title} stacks`}>
      {entries.map(([key, text]) => (
        <li key={key}>
          <span className="muted">
            {title} {key}:
          </span>{' '}
          {text}
        </li>
      ))}
    </ul>
  );
}

function fingerprintFields(fingerprint: unknown): Record<string, unknown> {
  return typeof fingerprint === 'object' && fingerprint !== null ? (fingerprint as Record<string, unknown>) : {};
}

/** How a fingerprint field reads: the stacks in words, other objects as JSON. */
function fieldText(key: string, value: unknown): string {
  const entries =
    key === 'client_stacks' ? clientStackEntries(value) : key === 'server_stacks' ? serverStackEntries(value) : [];
  const readable = stackEntriesText(entries);
  if (readable) return readable;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The device fingerprint a run reported (free-form: whatever the harness knows of itself). */
function Fingerprint({ fingerprint }: { fingerprint: unknown }) {
  const entries = Object.entries(fingerprintFields(fingerprint));
  if (entries.length === 0) return null;
  return (
    <details className="small">
      <summary>Fingerprint</summary>
      <dl className="fingerprint">
        {entries.map(([key, value]) => (
          <div key={key} style={{ display: 'contents' }}>
            <dt>{key}</dt>
            <dd>{fieldText(key, value)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
