import { Link } from 'react-router-dom';
import { FieldMessages } from '@/components/field-messages';
import { capitalized, gateMetricsOf, isPerRequest, metricWords } from '@/lib/gate-metrics';
import {
  WORKLOAD_FIELDS,
  WORKLOAD_KIND_LABELS,
  WORKLOAD_KINDS,
  type SpecDraft,
  type WorkloadKind,
  withWorkloadKind,
} from './spec-draft';
import { usePresets } from '../api/get-presets';

type FieldsetProps = {
  draft: SpecDraft;
  update: (patch: Partial<SpecDraft>) => void;
  /** The messages at a field path and below it (the server's, or the browser's). */
  messages: (path: string) => string[];
};

const idOf = (path: string) => path.replace(/\./g, '-');

/** An input with its label, hint and messages, wired for screen readers. */
function TextField({
  path,
  label,
  value,
  onChange,
  messages,
  hint,
  placeholder,
  inputMode,
}: {
  path: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  messages: string[];
  hint?: string;
  placeholder?: string;
  inputMode?: 'numeric' | 'decimal';
}) {
  const id = `spec-${idOf(path)}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = messages.length ? `${idOf(path)}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        inputMode={inputMode}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={messages.length > 0 || undefined}
        aria-describedby={[errorId, hintId].filter(Boolean).join(' ') || undefined}
      />
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldMessages id={`${idOf(path)}-error`} messages={messages} />
    </div>
  );
}

/** The workload's kind and its fields besides periods, repetitions, concurrency and paths (the form's own). */
export function WorkloadFieldset({ draft, update, messages, presetName }: FieldsetProps & { presetName: string }) {
  const presets = usePresets();
  const preset = presets.data?.find((candidate) => candidate.name === presetName);
  const kind = draft.workloadKind;
  const setField = (key: string, value: string) => update({ workloadFields: { ...draft.workloadFields, [key]: value } });
  return (
    <div className="stack-sm">
      <div className="field-row">
        <div className="field">
          <label htmlFor="spec-workload-kind">Workload</label>
          <select
            id="spec-workload-kind"
            value={kind}
            onChange={(event) => update(withWorkloadKind(draft, event.target.value as WorkloadKind, preset))}
          >
            {WORKLOAD_KINDS.map((candidate) => (
              <option key={candidate} value={candidate}>
                {WORKLOAD_KIND_LABELS[candidate]}
              </option>
            ))}
          </select>
          <FieldMessages id="workload-kind-error" messages={messages('workload.kind')} />
        </div>
        {WORKLOAD_FIELDS[kind].map((field) => (
          <TextField
            key={`${kind}-${field.key}`}
            path={`workload.${field.key}`}
            label={field.label}
            hint={field.hint}
            inputMode={field.list ? undefined : 'numeric'}
            placeholder={field.list ? undefined : 'default'}
            value={draft.workloadFields[field.key] ?? ''}
            onChange={(value) => setField(field.key, value)}
            messages={messages(`workload.${field.key}`)}
          />
        ))}
      </div>
      {kind === 'requests' && (
        <div className="field">
          <label htmlFor="spec-requests">Requests (JSON list)</label>
          <textarea
            id="spec-requests"
            rows={8}
            className="code-input"
            value={draft.requestsJson}
            placeholder='[{"name": "feed", "method": "GET", "path": "/v1/feed", "headers": {"authorization": "Bearer {{secret.API_TOKEN}}"}}]'
            onChange={(event) => update({ requestsJson: event.target.value })}
            aria-invalid={messages('workload.requests').length > 0 || undefined}
            aria-describedby={messages('workload.requests').length ? 'workload-requests-error' : 'spec-requests-hint'}
          />
          <p className="hint" id="spec-requests-hint">
            Each request: <code>path</code> (on each arm’s endpoint) or <code>url</code>, <code>method</code>,{' '}
            <code>headers</code> (secrets as <code>{'{{secret.NAME}}'}</code>), <code>body</code> /{' '}
            <code>body_bytes</code>, <code>expect_status</code>. Or{' '}
            <Link to="/comparisons/new/har">build the list from a HAR recording</Link>.
          </p>
          <FieldMessages id="workload-requests-error" messages={messages('workload.requests')} />
        </div>
      )}
    </div>
  );
}

/** Mode, seed, tags, the per-request timeout and the CI gate. */
export function RunOptionsFieldset({ draft, update, messages }: FieldsetProps) {
  const gate = (patch: Partial<SpecDraft['gate']>) => update({ gate: { ...draft.gate, ...patch } });
  return (
    <fieldset className="fieldset">
      <legend>Run options and CI gate</legend>
      <div className="field-row">
        <div className="field">
          <label htmlFor="spec-mode">Mode</label>
          <select id="spec-mode" value={draft.mode} onChange={(event) => update({ mode: event.target.value as 'ab' | 'aa' })}>
            <option value="ab">A/B: compare the arms</option>
            <option value="aa">A/A: one arm measured twice (false-positive check)</option>
          </select>
          <FieldMessages id="mode-error" messages={messages('mode')} />
        </div>
        <TextField
          path="seed"
          label="Seed (optional)"
          inputMode="numeric"
          placeholder="random"
          hint="Seeds the block order; the same seed replays the same order."
          value={draft.seed}
          onChange={(seed) => update({ seed })}
          messages={messages('seed')}
        />
        <TextField
          path="timeout_s"
          label="Timeout per request (s)"
          inputMode="numeric"
          placeholder="30"
          value={draft.timeout}
          onChange={(timeout) => update({ timeout })}
          messages={messages('timeout_s')}
        />
      </div>
      <div className="field">
        <label htmlFor="spec-tags">Tags (optional)</label>
        <textarea
          id="spec-tags"
          rows={2}
          placeholder={'branch=main\ncommit=3f2a9c1'}
          value={draft.tags}
          onChange={(event) => update({ tags: event.target.value })}
          aria-invalid={messages('tags').length > 0 || undefined}
          aria-describedby={messages('tags').length ? 'tags-error' : 'spec-tags-hint'}
        />
        <p className="hint" id="spec-tags-hint">
          One key=value per line; CI finds baselines by them (branch:main, tag:KEY=VALUE).
        </p>
        <FieldMessages id="tags-error" messages={messages('tags')} />
      </div>
      <div className="field-row">
        <GateMetricField draft={draft} gate={gate} messages={messages} />
        <TextField
          path="gate.margin_pct"
          label="Gate margin (%)"
          inputMode="decimal"
          placeholder="5"
          hint="The change that counts: smaller is equivalent."
          value={draft.gate.marginPct}
          onChange={(marginPct) => gate({ marginPct })}
          messages={messages('gate.margin_pct')}
        />
        <TextField
          path="gate.alpha"
          label="Gate α"
          inputMode="decimal"
          placeholder="0.01"
          value={draft.gate.alpha}
          onChange={(alpha) => gate({ alpha })}
          messages={messages('gate.alpha')}
        />
      </div>
    </fieldset>
  );
}

/**
 * What the gate judges: the workload kind's metrics (from the spec's schema), its default first
 * and named as such, so a series shows that it is judged on series time unless changed.
 */
function GateMetricField({
  draft,
  gate,
  messages,
}: Pick<FieldsetProps, 'draft' | 'messages'> & { gate: (patch: Partial<SpecDraft['gate']>) => void }) {
  const allowed = gateMetricsOf(draft.workloadKind);
  const fallback = allowed[0] ?? 'total_ms';
  const chosen = draft.gate.metric || fallback;
  return (
    <div className="field">
      <label htmlFor="spec-gate-metric">Gate metric</label>
      <select
        id="spec-gate-metric"
        value={draft.gate.metric}
        onChange={(event) => gate({ metric: event.target.value })}
        aria-describedby={messages('gate.metric').length ? 'gate-metric-error' : 'spec-gate-metric-hint'}
      >
        <option value="">
          Default: {metricWords(fallback)} ({fallback})
        </option>
        {allowed.map((metric) => (
          <option key={metric} value={metric}>
            {capitalized(metricWords(metric))} ({metric})
          </option>
        ))}
      </select>
      <p className="hint" id="spec-gate-metric-hint" data-testid="gate-metric-hint">
        {isPerRequest(chosen)
          ? 'Each request on its own.'
          : `Each ${chosen === 'page_load_ms' ? 'pass over the list' : 'series'} as a whole: what the app's user waits for. ` +
            'Issued together, a request can take longer while the whole loads sooner.'}
      </p>
      <FieldMessages id="gate-metric-error" messages={messages('gate.metric')} />
    </div>
  );
}
