import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { usePresets } from '../api/get-presets';
import { useComparison } from '../api/get-comparison';
import { useLiveValidation } from '../api/validate-comparison';
import { useNetworkProfiles } from '../api/get-network-profiles';
import { useCreateComparison } from '../api/create-comparison';
import { Spinner } from '@/components/spinner';
import { ApiError } from '@/lib/api-client';
import {
  CONNECTION_POLICIES,
  PROTOCOLS,
  type ComparisonDetail,
  type NetworkProfile,
  type Preset,
} from '@/lib/api-types';
import { flattenFieldErrors, type FieldError } from '@/lib/field-errors';
import { DevicesFieldset } from './devices-fieldset';
import { BuilderSummary } from './builder-summary';
import { RunOptionsFieldset, WorkloadFieldset } from './builder-fieldsets';
import { ErrorSummary, FieldMessages, fieldMessages } from '@/components/field-messages';
import {
  buildSpec,
  CONCURRENCY_CHOICES,
  CUSTOM_FILES,
  CUSTOM_PATHS,
  CONCURRENCY_KINDS,
  WORKLOAD_FIELDS,
  defaultName,
  draftFromPreset,
  draftFromSpec,
  mergeWithPreset,
  nextArm,
  SCRATCH_SPEC,
  type ArmDraft,
  type SpecDraft,
} from './spec-draft';

const PREFERRED_PRESET = 'mid-image-series';
// Where the server reports a problem with the custom paths field, and with the downloads field.
const PATH_FIELDS = ['workload.object_paths', 'workload.path'];
const FILE_FIELDS = ['workload.file_paths'];

type CreateComparisonFormProps = {
  onCreated: (comparison: ComparisonDetail) => void;
  /** Edit a copy: the builder starts from this comparison's submitted spec. */
  fromId?: string;
};

export function CreateComparisonForm({ onCreated, fromId }: CreateComparisonFormProps) {
  const presets = usePresets();
  const profiles = useNetworkProfiles();
  if (presets.isPending || profiles.isPending) return <Spinner label="Loading presets" />;
  for (const [what, query] of [['presets', presets], ['network profiles', profiles]] as const) {
    if (query.isError) {
      return (
        <p role="alert" className="alert alert-error">
          Could not load {what}: {query.error.message}
        </p>
      );
    }
  }
  if (fromId) return <CopyForm fromId={fromId} presets={presets.data ?? []} profiles={profiles.data ?? []} onCreated={onCreated} />;
  return <SpecForm presets={presets.data ?? []} profiles={profiles.data ?? []} onCreated={onCreated} />;
}

type Start = { presetName: string; draft: SpecDraft; copyOf?: string };

/** Edit a copy: the previous comparison's spec as it was sent, merged with its preset as the server merges it. */
function CopyForm({ fromId, ...props }: Omit<SpecFormProps, 'start'> & { fromId: string }) {
  const comparison = useComparison(fromId);
  if (comparison.isPending) return <Spinner label="Loading the comparison to copy" />;
  if (comparison.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not load the comparison to copy: {comparison.error.message}
      </p>
    );
  }
  const submitted = comparison.data.submitted_spec;
  const spec = typeof submitted === 'object' && submitted !== null && !Array.isArray(submitted) ? (submitted as Record<string, unknown>) : {};
  const preset = props.presets.find((candidate) => candidate.name === spec['preset']);
  const draft = draftFromSpec(mergeWithPreset(spec, preset), { keepName: true });
  return <SpecForm key={fromId} {...props} start={{ presetName: preset?.name ?? '', draft, copyOf: comparison.data.name }} />;
}

function errorsFrom(error: unknown): FieldError[] {
  if (error instanceof ApiError) {
    const flat = flattenFieldErrors(error.body);
    return flat.length ? flat : [{ path: '', message: error.message }];
  }
  return [{ path: '', message: error instanceof Error ? error.message : String(error) }];
}

type SpecFormProps = {
  presets: Preset[];
  /** GET /api/v1/network-profiles: the built-in ones and the organization's own. */
  profiles: NetworkProfile[];
  onCreated: CreateComparisonFormProps['onCreated'];
  /** Where the builder starts; default: the preferred preset. */
  start?: Start;
};

function SpecForm({ presets, profiles, onCreated, start }: SpecFormProps) {
  const initial = presets.find((preset) => preset.name === PREFERRED_PRESET) ?? presets[0];
  const [presetName, setPresetName] = useState(start ? start.presetName : (initial?.name ?? ''));
  const preset = presets.find((candidate) => candidate.name === presetName);
  const [draft, setDraftState] = useState<SpecDraft>(() => start?.draft ?? draftFromPreset(initial));
  const [copyOf, setCopyOf] = useState(start?.copyOf);
  // What the server (or the browser) refused on submit; cleared by the next edit.
  const [errors, setErrors] = useState<FieldError[]>([]);
  const create = useCreateComparison();
  const setDraft: typeof setDraftState = (next) => {
    setErrors([]);
    setDraftState(next);
  };

  const built = useMemo(() => buildSpec(preset, draft), [preset, draft]);
  const live = useLiveValidation(built.spec, built.errors);
  const liveErrors = live.state === 'invalid' ? live.errors : [];
  // At the fields: what submit was refused with, else what the live check says now.
  const shown = errors.length ? errors : liveErrors;

  const selectPreset = (next: Preset) => {
    setPresetName(next.name);
    setCopyOf(undefined);
    setDraft(draftFromPreset(next));
  };
  const startFromScratch = () => {
    setPresetName('');
    setCopyOf(undefined);
    setDraft(draftFromSpec(SCRATCH_SPEC));
  };

  const update = (patch: Partial<SpecDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const updateArm = (index: number, patch: Partial<ArmDraft>) =>
    setDraft((current) => {
      const arms = current.arms.map((arm, i) => (i === index ? { ...arm, ...patch } : arm));
      const renamed = patch.label !== undefined && current.arms[index]?.label === current.baselineArm;
      return { ...current, arms, baselineArm: renamed ? (patch.label ?? '') : current.baselineArm };
    });
  const addArm = () =>
    setDraft((current) => ({
      ...current,
      arms: [...current.arms, current.arms.length === 2 && current.arms.some((arm) => arm.label === 'h3') ? nextArm(current.arms) : { label: `arm-${current.arms.length + 1}`, protocol: 'h3', connection: 'warm', endpoint: '', caBundle: '' }],
    }));
  const removeArm = (index: number) =>
    setDraft((current) => {
      const removed = current.arms[index];
      const arms = current.arms.filter((_, i) => i !== index);
      const baselineArm = removed?.label === current.baselineArm ? (arms[0]?.label ?? '') : current.baselineArm;
      return { ...current, arms, baselineArm };
    });
  const toggleProfile = (profile: string) =>
    setDraft((current) => ({
      ...current,
      networkProfiles: current.networkProfiles.includes(profile)
        ? current.networkProfiles.filter((p) => p !== profile)
        : [...current.networkProfiles, profile],
    }));

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!built.spec) {
      setErrors(built.errors);
      return;
    }
    setErrors([]);
    create.mutate(built.spec, {
      onSuccess: onCreated,
      onError: (error) => setErrors(errorsFrom(error)),
    });
  }

  const messages = (path: string) => fieldMessages(shown, path);
  const describedBy = (path: string) => (messages(path).length ? `${path.replace(/\./g, '-')}-error` : undefined);
  const kind = draft.workloadKind;
  const series = kind === 'series';
  const customPaths = CUSTOM_PATHS[kind];
  const messagesAt = (fields: string[]) =>
    shown.filter((error) => fields.some((field) => error.path.startsWith(field))).map((error) => error.message);
  const pathMessages = messagesAt(PATH_FIELDS);
  const customFiles = CUSTOM_FILES[kind];
  const fileMessages = messagesAt(FILE_FIELDS);

  return (
    <form className="form form-wide" onSubmit={handleSubmit} aria-label="New comparison" noValidate>
      <ErrorSummary errors={errors} />

      <fieldset className="fieldset">
        <legend>Preset</legend>
        <div className="preset-grid" role="radiogroup" aria-label="Preset">
          {presets.map((candidate) => (
            <label
              key={candidate.name}
              className={candidate.name === presetName ? 'preset-card preset-card-selected' : 'preset-card'}
              data-testid={`preset-${candidate.name}`}
            >
              <input
                type="radio"
                name="preset"
                value={candidate.name}
                checked={candidate.name === presetName}
                onChange={() => selectPreset(candidate)}
                className="visually-hidden"
                aria-labelledby={`preset-${candidate.name}-title`}
                aria-describedby={`preset-${candidate.name}-description`}
              />
              <span className="preset-title" id={`preset-${candidate.name}-title`}>
                {candidate.title}
              </span>
              <span className="preset-name">{candidate.name}</span>
              <span className="preset-description" id={`preset-${candidate.name}-description`}>
                {candidate.description}
              </span>
            </label>
          ))}
        </div>
        <p className="preset-start">
          {copyOf ? (
            <span className="muted" role="status">
              Editing a copy of “{copyOf}”{presetName ? ` (preset ${presetName})` : ''}.{' '}
            </span>
          ) : !presetName ? (
            <span className="muted">Starting from scratch. </span>
          ) : null}
          <button type="button" className="button button-ghost" onClick={startFromScratch}>
            Start from scratch
          </button>{' '}
          or <Link to="/comparisons/new/har">import a HAR recording</Link> as your own request list.
        </p>
      </fieldset>

      <fieldset className="fieldset">
        <legend>Details</legend>
        <div className="field">
          <label htmlFor="spec-name">Name (optional)</label>
          <input
            id="spec-name"
            value={draft.name}
            placeholder={defaultName(preset)}
            onChange={(event) => update({ name: event.target.value })}
            aria-invalid={messages('name').length > 0 || undefined}
            aria-describedby={describedBy('name')}
          />
          <FieldMessages id="name-error" messages={messages('name')} />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="spec-blocks">Blocks</label>
            <input
              id="spec-blocks"
              value={draft.blocks}
              onChange={(event) => update({ blocks: event.target.value })}
              aria-invalid={messages('blocks').length > 0 || undefined}
              aria-describedby={describedBy('blocks')}
            />
            <p className="hint">
              Randomized interleaved blocks (ABBA) per run, or run until decided: a range such as 6–24 (more blocks
              only while the verdict is undecided) or auto.
            </p>
            <FieldMessages id="blocks-error" messages={messages('blocks')} />
          </div>
          {series && (
            <>
              <div className="field">
                <label htmlFor="spec-periods">Periods (requests per series)</label>
                <input
                  id="spec-periods"
                  value={draft.periods}
                  onChange={(event) => update({ periods: event.target.value })}
                  aria-invalid={messages('workload.periods').length > 0 || undefined}
                  aria-describedby={describedBy('workload.periods')}
                />
                <p className="hint">Comma-separated, e.g. 3, 6, 9 (the objects wrap around after the last).</p>
                <FieldMessages id="workload-periods-error" messages={messages('workload.periods')} />
              </div>
              <div className="field">
                <label htmlFor="spec-repetitions">Repetitions per period</label>
                <input
                  id="spec-repetitions"
                  inputMode="numeric"
                  value={draft.repetitions}
                  onChange={(event) => update({ repetitions: event.target.value })}
                  aria-invalid={messages('workload.repetitions').length > 0 || undefined}
                  aria-describedby={describedBy('workload.repetitions')}
                />
                <FieldMessages id="workload-repetitions-error" messages={messages('workload.repetitions')} />
              </div>
            </>
          )}
          {CONCURRENCY_KINDS.includes(kind) && (
              <div className="field">
                <label htmlFor="spec-concurrency">Concurrency</label>
                <select
                  id="spec-concurrency"
                  value={draft.concurrency}
                  onChange={(event) => update({ concurrency: event.target.value })}
                  aria-invalid={messages('workload.concurrency').length > 0 || undefined}
                  aria-describedby={describedBy('workload.concurrency')}
                >
                  {[...new Set([...CONCURRENCY_CHOICES, draft.concurrency])].map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
                <p className="hint">
                  How the app issues a series (an API round, a request list): one request after another, or all at once over up to N HTTP/1.1
                  connections per host (HTTP/2, HTTP/3 and gRPC multiplex them on one), on hosts and phones alike.
                </p>
                <FieldMessages id="workload-concurrency-error" messages={messages('workload.concurrency')} />
              </div>
          )}
        </div>
        <WorkloadFieldset draft={draft} update={update} messages={messages} presetName={presetName} />
        {customPaths && (
          <PathsField
            id="spec-paths"
            ask={customPaths}
            hint={`${customPaths.hint} Give each arm the endpoint of one of your builds under Arms.`}
            multiline={series}
            value={draft.paths}
            onChange={(paths) => update({ paths })}
            messages={pathMessages}
          />
        )}
        {customFiles && (
          <PathsField
            id="spec-file-paths"
            ask={customFiles}
            hint={customFiles.hint}
            multiline
            value={draft.filePaths}
            onChange={(filePaths) => update({ filePaths })}
            messages={fileMessages}
          />
        )}
        <FieldMessages
          id="workload-error"
          messages={shown
            .filter(
              (error) =>
                (error.path === 'workload' || error.path.startsWith('workload.')) &&
                !error.path.startsWith('workload.periods') &&
                !error.path.startsWith('workload.repetitions') &&
                !error.path.startsWith('workload.concurrency') &&
                !WORKLOAD_FIELDS[kind].some((field) => error.path.startsWith(`workload.${field.key}`)) &&
                !error.path.startsWith('workload.requests') &&
                ![...PATH_FIELDS, ...FILE_FIELDS].some((field) => error.path.startsWith(field)),
            )
            .map((error) => error.message)}
        />
      </fieldset>

      <fieldset className="fieldset">
        <legend>Arms</legend>
        <table className="table arms-table">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Protocol</th>
              <th scope="col">Connection</th>
              <th scope="col">Endpoint (optional)</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {draft.arms.map((arm, index) => {
              const base = `arms.${index}`;
              return (
                <tr key={index} data-testid="arm-row">
                  <td>
                    <input
                      aria-label={`Label of arm ${index + 1}`}
                      value={arm.label}
                      onChange={(event) => updateArm(index, { label: event.target.value })}
                      aria-invalid={messages(`${base}.label`).length > 0 || undefined}
                    />
                    <FieldMessages id={`arms-${index}-label-error`} messages={messages(`${base}.label`)} />
                  </td>
                  <td>
                    <select
                      aria-label={`Protocol of arm ${index + 1}`}
                      value={arm.protocol}
                      onChange={(event) => updateArm(index, { protocol: event.target.value as ArmDraft['protocol'] })}
                      aria-invalid={messages(`${base}.protocol`).length > 0 || undefined}
                    >
                      {PROTOCOLS.map((protocol) => (
                        <option key={protocol} value={protocol}>
                          {protocolLabel(protocol)}
                        </option>
                      ))}
                    </select>
                    <FieldMessages id={`arms-${index}-protocol-error`} messages={messages(`${base}.protocol`)} />
                  </td>
                  <td>
                    <select
                      aria-label={`Connection of arm ${index + 1}`}
                      value={arm.connection}
                      onChange={(event) =>
                        updateArm(index, { connection: event.target.value as ArmDraft['connection'] })
                      }
                      aria-invalid={messages(`${base}.connection`).length > 0 || undefined}
                    >
                      {CONNECTION_POLICIES.map((policy) => (
                        <option key={policy} value={policy}>
                          {policy}
                        </option>
                      ))}
                    </select>
                    <FieldMessages id={`arms-${index}-connection-error`} messages={messages(`${base}.connection`)} />
                  </td>
                  <td>
                    <input
                      aria-label={`Endpoint of arm ${index + 1}`}
                      placeholder="reference target"
                      value={arm.endpoint}
                      onChange={(event) => updateArm(index, { endpoint: event.target.value })}
                      aria-invalid={messages(`${base}.endpoint`).length > 0 || undefined}
                    />
                    <FieldMessages id={`arms-${index}-endpoint-error`} messages={messages(`${base}.endpoint`)} />
                    <details className="arm-ca" open={Boolean(arm.caBundle) || messages(`${base}.ca_bundle`).length > 0}>
                      <summary>CA bundle</summary>
                      <textarea
                        aria-label={`CA bundle of arm ${index + 1}`}
                        rows={3}
                        placeholder="-----BEGIN CERTIFICATE-----"
                        value={arm.caBundle ?? ''}
                        onChange={(event) => updateArm(index, { caBundle: event.target.value })}
                        aria-invalid={messages(`${base}.ca_bundle`).length > 0 || undefined}
                      />
                      <FieldMessages id={`arms-${index}-ca-error`} messages={messages(`${base}.ca_bundle`)} />
                    </details>
                  </td>
                  <td className="cell-action">
                    <button
                      type="button"
                      className="button button-ghost"
                      onClick={() => removeArm(index)}
                      disabled={draft.arms.length <= 1}
                      aria-label={`Remove arm ${index + 1}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <FieldMessages
          id="arms-error"
          messages={shown.filter((error) => error.path === 'arms').map((error) => error.message)}
        />
        <div className="field-row field-row-end">
          <button type="button" className="button" onClick={addArm} disabled={draft.arms.length >= 8}>
            Add arm
          </button>
          <div className="field">
            <label htmlFor="spec-baseline">Baseline arm</label>
            <select
              id="spec-baseline"
              value={draft.baselineArm}
              onChange={(event) => update({ baselineArm: event.target.value })}
              aria-invalid={messages('baseline_arm').length > 0 || undefined}
              aria-describedby={describedBy('baseline_arm')}
            >
              {draft.arms.map((arm, index) => (
                <option key={`${arm.label}-${index}`} value={arm.label}>
                  {arm.label || `(arm ${index + 1})`}
                </option>
              ))}
            </select>
            <FieldMessages id="baseline_arm-error" messages={messages('baseline_arm')} />
          </div>
        </div>
      </fieldset>

      <fieldset className="fieldset">
        <legend>Network profiles</legend>
        <div className="chip-group">
          {profiles.map((profile) => (
            <label key={profile.name} className="chip" title={profileSummary(profile)}>
              <input
                type="checkbox"
                checked={draft.networkProfiles.includes(profile.name)}
                onChange={() => toggleProfile(profile.name)}
              />
              <span>{profile.name}</span>
              {!profile.built_in && <span className="tag">own</span>}
            </label>
          ))}
        </div>
        <FieldMessages id="network_profiles-error" messages={messages('network_profiles')} />
      </fieldset>

      <DevicesFieldset
        devices={draft.devices}
        onChange={(patch) => setDraft((current) => ({ ...current, devices: { ...current.devices, ...patch } }))}
        messages={messages}
      />

      <RunOptionsFieldset draft={draft} update={update} messages={messages} />

      <BuilderSummary
        spec={built.spec}
        live={live}
        showProblems={errors.length === 0}
        submit={
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create comparison'}
          </button>
        }
      />
    </form>
  );
}

/** "RTT 70 ms, 12000/12000 kbit/s, 0 % loss — WebPageTest" */
function profileSummary(profile: NetworkProfile): string {
  const rate =
    profile.down_kbit === null && profile.up_kbit === null
      ? 'unlimited'
      : `${profile.down_kbit ?? '∞'}/${profile.up_kbit ?? '∞'} kbit/s`;
  const about = [profile.origin, profile.description].filter(Boolean).join(': ');
  return `RTT ${profile.rtt_ms} ms, ${rate}, ${profile.loss_pct} % loss${about ? ` — ${about}` : ''}`;
}

function protocolLabel(protocol: string): string {
  switch (protocol) {
    case 'h1c':
      return 'HTTP/1.1 cleartext (h1c)';
    case 'h1':
      return 'HTTPS/1.1 (h1)';
    case 'h2':
      return 'HTTP/2 (h2)';
    case 'h3':
      return 'HTTP/3 (h3)';
    case 'grpc':
      return 'gRPC (grpc)';
    default:
      return protocol;
  }
}

type PathsFieldProps = {
  id: string;
  ask: { label: string; placeholder: string };
  hint: string;
  multiline: boolean;
  value: string;
  onChange: (value: string) => void;
  messages: string[];
};

/** A field for paths on the customer's own server (one path, or one per line), with the server's messages. */
function PathsField({ id, ask, hint, multiline, value, onChange, messages }: PathsFieldProps) {
  const common = {
    id,
    placeholder: ask.placeholder,
    value,
    'aria-invalid': messages.length > 0 || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{ask.label}</label>
      {multiline ? (
        <textarea {...common} rows={3} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input {...common} onChange={(event) => onChange(event.target.value)} />
      )}
      <p className="hint">{hint}</p>
      <FieldMessages id={`${id}-error`} messages={messages} />
    </div>
  );
}
