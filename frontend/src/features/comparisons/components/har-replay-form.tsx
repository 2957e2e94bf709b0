import { useState, type FormEvent } from 'react';
import { ErrorSummary } from '@/components/field-messages';
import { ApiError } from '@/lib/api-client';
import type { ComparisonDetail, ComparisonSpecRequest, HarPreview, Protocol, RequestsWorkload } from '@/lib/api-types';
import { flattenFieldErrors, type FieldError } from '@/lib/field-errors';
import { usePreviewHar } from '../api/preview-har';
import { useCreateComparison } from '../api/create-comparison';
import { DataTable } from '@/components/data-table';

/** HTTP protocols a request list can replay over (gRPC cannot replay HTTP requests). */
const REPLAY_PROTOCOLS: readonly Protocol[] = ['h1', 'h2', 'h3', 'h1c'];

export type ReplayArm = { label: string; protocol: Protocol; endpoint: string };

/** Two arms against the recording's own server, the first the baseline: the question most teams ask first. */
export function defaultArms(origin: string): ReplayArm[] {
  return [
    { label: 'h2', protocol: 'h2', endpoint: origin },
    { label: 'h3', protocol: 'h3', endpoint: origin },
  ];
}

/** The request body of the replay: the preview's workload as it is, the arms as edited. */
export function replaySpec(name: string, workload: RequestsWorkload, arms: ReplayArm[]): ComparisonSpecRequest {
  return {
    name: name.trim() || 'HAR replay',
    workload,
    // An empty endpoint leaves it out: the arm runs against the runner's reference target.
    arms: arms.map((arm) => {
      const endpoint = arm.endpoint.trim();
      return { label: arm.label.trim(), protocol: arm.protocol, ...(endpoint ? { endpoint } : {}) };
    }),
    baseline_arm: arms[0]?.label.trim() ?? '',
  };
}

/** What is wrong with a chosen file before it is sent, or null. */
export function parseHar(text: string): { har: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'The file is not JSON: export the recording as a HAR file (HTTP Archive).' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'A HAR file is a JSON object with log.entries.' };
  }
  return { har: parsed as Record<string, unknown> };
}

/** The file's text (FileReader: every browser, and jsdom, which has no Blob.text). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsText(file);
  });
}

function errorsOf(error: unknown): FieldError[] {
  if (error instanceof ApiError) {
    const errors = flattenFieldErrors(error.body);
    if (error.status === 413) return [{ path: '', message: 'The HAR file is larger than the 10 MiB the import takes.' }];
    return errors.length ? errors : [{ path: '', message: error.message }];
  }
  return [{ path: '', message: error instanceof Error ? error.message : String(error) }];
}

type HarReplayFormProps = { onCreated: (comparison: ComparisonDetail) => void };

export function HarReplayForm({ onCreated }: HarReplayFormProps) {
  const preview = usePreviewHar();
  const submit = useCreateComparison();
  const [file, setFile] = useState<File | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [repetitions, setRepetitions] = useState('10');
  const [origin, setOrigin] = useState('');
  const [name, setName] = useState('');
  const [arms, setArms] = useState<ReplayArm[]>([]);
  const [result, setResult] = useState<HarPreview | null>(null);

  async function onPreview(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFileProblem(null);
    if (!file || file.size === 0) {
      setFileProblem('Choose a HAR file first.');
      return;
    }
    const parsed = parseHar(await readText(file));
    if ('problem' in parsed) {
      setFileProblem(parsed.problem);
      return;
    }
    const answer = await preview
      .mutateAsync({ har: parsed.har, repetitions: Number(repetitions) || 10, origin: origin.trim() || undefined })
      .catch(() => null);
    if (answer) {
      setResult(answer);
      setArms(defaultArms(answer.origin));
      setName((current) => current || `HAR replay: ${file.name.replace(/\.(har|json)$/i, '')}`);
    }
  }

  function setArm(index: number, patch: Partial<ReplayArm>) {
    setArms((current) => current.map((arm, i) => (i === index ? { ...arm, ...patch } : arm)));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!result) return;
    submit.mutate(replaySpec(name, result.workload as RequestsWorkload, arms), { onSuccess: onCreated });
  }

  const workload = result ? (result.workload as RequestsWorkload) : null;
  const elsewhere = (workload?.requests ?? []).filter((request) => request.url).length;
  const toOrigin = (workload?.requests?.length ?? 0) - elsewhere;
  return (
    <div className="stack">
      <form className="card form" onSubmit={(event) => void onPreview(event)} aria-label="Import a HAR file">
        <h2>1. Recording</h2>
        <p className="muted">
          A HAR file exported from Chrome DevTools, Charles or Proxyman. Cookies and credentials are dropped, never
          sent; map them to organization secrets through the API (<code>secret_map</code>) to replay them.
        </p>
        <div className="field">
          <label htmlFor="har-file">HAR file</label>
          <input
            id="har-file"
            name="har"
            type="file"
            accept=".har,.json,application/json"
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
          />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="har-repetitions">Repetitions (1–500)</label>
            <input
              id="har-repetitions"
              inputMode="numeric"
              value={repetitions}
              onChange={(event) => setRepetitions(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="har-origin">Main server (optional)</label>
            <input
              id="har-origin"
              placeholder="default: the first request's, e.g. https://api.example.com"
              value={origin}
              onChange={(event) => setOrigin(event.target.value)}
            />
          </div>
        </div>
        {fileProblem && (
          <p role="alert" className="alert alert-error">
            {fileProblem}
          </p>
        )}
        <ErrorSummary title="The recording could not be imported:" errors={preview.isError ? errorsOf(preview.error) : []} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={preview.isPending}>
            {preview.isPending ? 'Reading…' : 'Preview'}
          </button>
        </div>
      </form>

      {result && workload && (
        <section className="card" aria-label="Preview">
          <h2>2. Preview</h2>
          <p className="muted">
            {toOrigin} requests to <code>{result.origin}</code>
            {elsewhere > 0 ? ` and ${elsewhere} to other servers` : ''}, replayed{' '}
            {workload.repetitions ?? 10} times in recorded order; {result.concurrency_groups.length} groups of requests the
            app issued at once. Requests to the main server become paths, so they run against each arm&apos;s endpoint.
          </p>
          <DataTable
            label="Requests to replay"
            columns={['Request', 'Method', 'Path or URL', 'Expected status']}
            compact={false}
          >
            <tbody>
              {(workload.requests ?? []).map((request, index) => (
                <tr key={`${index}-${request.name ?? ''}`}>
                  <th scope="row">{request.name ?? index}</th>
                  <td>{request.method ?? 'GET'}</td>
                  <td>
                    <code>{request.path ?? request.url}</code>
                  </td>
                  <td>{request.expect_status ?? 'any below 400'}</td>
                </tr>
              ))}
            </tbody>
          </DataTable>
          {result.dropped.length > 0 && (
            <details>
              <summary>{result.dropped.length} headers dropped (credentials)</summary>
              <ul>
                {result.dropped.map((dropped, index) => (
                  <li key={`${dropped.entry}-${dropped.header}-${index}`}>
                    request {dropped.entry}: <code>{dropped.header}</code> — {dropped.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}

      {result && (
        <form className="card form" onSubmit={onSubmit} aria-label="Replay against your servers">
          <h2>3. Arms</h2>
          <p className="muted">
            Each arm replays the list against its endpoint over its protocol: two builds of your server, or one server
            over two protocols. The first arm is the baseline.
          </p>
          <div className="field">
            <label htmlFor="replay-name">Name</label>
            <input id="replay-name" value={name} onChange={(event) => setName(event.target.value)} />
          </div>
          {arms.map((arm, index) => (
            <fieldset key={index} className="fieldset" aria-label={`Arm ${index + 1}`}>
              <legend>
                Arm {index + 1}
                {index === 0 ? ' (baseline)' : ''}
              </legend>
              <div className="field-row">
              <div className="field">
                <label htmlFor={`arm-${index}-label`}>Label</label>
                <input
                  id={`arm-${index}-label`}
                  value={arm.label}
                  onChange={(event) => setArm(index, { label: event.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`arm-${index}-protocol`}>Protocol</label>
                <select
                  id={`arm-${index}-protocol`}
                  value={arm.protocol}
                  onChange={(event) => setArm(index, { protocol: event.target.value as Protocol })}
                >
                  {REPLAY_PROTOCOLS.map((protocol) => (
                    <option key={protocol} value={protocol}>
                      {protocol}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor={`arm-${index}-endpoint`}>Endpoint</label>
                <input
                  id={`arm-${index}-endpoint`}
                  placeholder="empty: LatencyLab's reference target"
                  value={arm.endpoint}
                  onChange={(event) => setArm(index, { endpoint: event.target.value })}
                />
              </div>
              </div>
            </fieldset>
          ))}
          <div className="form-actions">
            <button
              type="button"
              className="button"
              onClick={() => setArms((current) => [...current, { label: `arm-${current.length + 1}`, protocol: 'h2', endpoint: result.origin }])}
            >
              Add arm
            </button>
            {arms.length > 2 && (
              <button type="button" className="button" onClick={() => setArms((current) => current.slice(0, -1))}>
                Remove last arm
              </button>
            )}
            <button type="submit" className="button button-primary" disabled={submit.isPending}>
              {submit.isPending ? 'Starting…' : 'Start comparison'}
            </button>
          </div>
          <ErrorSummary errors={submit.isError ? errorsOf(submit.error) : []} />
        </form>
      )}
    </div>
  );
}
