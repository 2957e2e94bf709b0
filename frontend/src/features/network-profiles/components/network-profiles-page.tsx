import { useId, useRef, useState, type FormEvent } from 'react';
import { DataTable } from '@/components/data-table';
import { ErrorSummary, FieldMessages, fieldMessages } from '@/components/field-messages';
import { PageHeader } from '@/components/page-header';
import { QueryState } from '@/components/query-state';
import { fieldErrorsOf } from '@/lib/api-client';
import type { FieldBounds, NetworkProfile, NetworkProfileBounds, NetworkProfileRequest } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { useCreateNetworkProfile, useNetworkProfileBounds, useNetworkProfiles } from '../api/network-profiles';
import { AdvancedFields } from './advanced-fields';
import { formatSetting, NumberField } from './number-field';
import {
  BLACKOUT_FIELDS,
  buildSpec,
  DIRECTION_FIELDS,
  DIRECTIONS,
  directionFieldPaths,
  isAdvancedPath,
  type Direction,
  type FieldSpec,
  type Values,
} from './profile-fields';

/** The network profiles page: the built-in presets, the organization's own, and a form to add one. */
export function NetworkProfilesPage() {
  const profiles = useNetworkProfiles();
  return (
    <div className="stack">
      <PageHeader title="Network profiles">
        The network conditions a comparison runs under, emulated per direction between the device and the target:
        delay, jitter, loss, rate and queue, and optional blackouts.
      </PageHeader>
      <QueryState query={profiles} what="network profiles">
        {(rows) => (
          <>
            <section aria-labelledby="own-profiles-heading" className="stack-tight">
              <h2 id="own-profiles-heading">Your organization's profiles</h2>
              <OwnProfiles profiles={rows.filter((profile) => !profile.built_in)} />
            </section>
            <section aria-labelledby="new-profile-heading" className="card pad stack-tight">
              <h2 id="new-profile-heading">New profile</h2>
              <CreateProfile />
            </section>
            <section aria-labelledby="presets-heading" className="stack-tight">
              <h2 id="presets-heading">Built-in presets</h2>
              <p className="muted">Read-only; every organization can use them by name in a spec.</p>
              <Presets profiles={rows.filter((profile) => profile.built_in)} />
            </section>
          </>
        )}
      </QueryState>
    </div>
  );
}

function kbit(value: number | null | undefined): string {
  return value === null || value === undefined ? 'unlimited' : `${formatSetting(value)} kbit/s`;
}

function Presets({ profiles }: { profiles: NetworkProfile[] }) {
  return (
    <DataTable label="Built-in presets" columns={['Name', 'Down', 'Up', 'RTT', 'Loss', 'Origin']}>
      <tbody>
        {profiles.map((profile) => (
          <tr key={profile.name}>
            <th scope="row">
              <code>{profile.name}</code> <span className="badge badge-queued">Built-in</span>
              {profile.description && <div className="muted small">{profile.description}</div>}
            </th>
            <td className="nowrap">{kbit(profile.down_kbit)}</td>
            <td className="nowrap">{kbit(profile.up_kbit)}</td>
            <td className="nowrap">{formatSetting(profile.rtt_ms)} ms</td>
            <td className="nowrap">{formatSetting(profile.loss_pct)} %</td>
            <td>{profile.origin}</td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

type DirectionSpec = Partial<Record<string, number | string | boolean | null>>;
type StoredSpec = { down?: DirectionSpec; up?: DirectionSpec; blackouts?: { every_s: number; duration_s: number }[] };

function directionText(spec: DirectionSpec | undefined): string {
  if (!spec) return '–';
  const parts = [`${formatSetting(Number(spec['delay_ms'] ?? 0))} ms`];
  if (Number(spec['jitter_ms'] ?? 0) > 0) parts.push(`± ${formatSetting(Number(spec['jitter_ms']))} ms jitter`);
  if (Number(spec['loss_pct'] ?? 0) > 0) parts.push(`${formatSetting(Number(spec['loss_pct']))} % loss`);
  parts.push(kbit(spec['rate_kbit'] as number | null | undefined));
  if (spec['queue_packets'] !== undefined) parts.push(`queue ${formatSetting(Number(spec['queue_packets']))} packets`);
  return parts.join(' · ');
}

function OwnProfiles({ profiles }: { profiles: NetworkProfile[] }) {
  if (profiles.length === 0) {
    return <p className="empty-state muted">No profile of your own yet. Create one below, or use a built-in preset.</p>;
  }
  return (
    <DataTable label="Your organization's profiles" columns={['Name', 'Downlink', 'Uplink', 'Blackouts']}>
      <tbody>
        {profiles.map((profile) => {
          const spec = (profile.spec ?? {}) as StoredSpec;
          return (
            <tr key={profile.name} data-testid={`profile-${profile.name}`}>
              <th scope="row">
                <code>{profile.name}</code>
                {profile.description && <div className="muted small">{profile.description}</div>}
              </th>
              <td>{directionText(spec.down)}</td>
              <td>{directionText(spec.up)}</td>
              <td>
                {spec.blackouts?.length
                  ? spec.blackouts.map((b) => `${formatSetting(b.duration_s)} s every ${formatSetting(b.every_s)} s`).join('; ')
                  : 'none'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </DataTable>
  );
}

function CreateProfile() {
  const bounds = useNetworkProfileBounds();
  return (
    <QueryState query={bounds} what="the bounds of a profile">
      {(data) => <CreateProfileForm bounds={data} />}
    </QueryState>
  );
}

function CreateProfileForm({ bounds }: { bounds: NetworkProfileBounds }) {
  const create = useCreateNetworkProfile();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [values, setValues] = useState<Values>({});
  const [blackouts, setBlackouts] = useState<number[]>([]);
  const [nextBlackout, setNextBlackout] = useState(0);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [createdName, setCreatedName] = useState<string | null>(null);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const nameId = useId();
  const descriptionId = useId();
  const base = useId();

  const set = (key: string, value: string) => setValues((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors([]);
    setCreatedName(null);
    create.mutate(
      // The server validates the spec field by field and answers with their paths.
      { name: name.trim(), description, spec: buildSpec(values, blackouts) as unknown as NetworkProfileRequest['spec'] },
      {
        onSuccess: (profile) => {
          setCreatedName(profile.name);
          setName('');
          setDescription('');
          setValues({});
          setBlackouts([]);
          nameRef.current?.focus();
        },
        onError: (error) => {
          const fieldErrors = fieldErrorsOf(error);
          setErrors(fieldErrors);
          if (fieldErrors.some((fieldError) => isAdvancedPath(fieldError.path))) setAdvancedOpen(true);
        },
      },
    );
  };

  const numberField = (path: string, stateKey: string, field: FieldSpec, fieldBounds: FieldBounds | undefined, help?: string) => (
    <NumberField
      key={stateKey}
      id={`${base}-${stateKey}`}
      label={field.label}
      unit={field.unit}
      bounds={fieldBounds}
      value={values[stateKey] ?? ''}
      messages={fieldMessages(errors, path)}
      onChange={(value) => set(stateKey, value)}
      help={help}
    />
  );

  const nameErrors = fieldMessages(errors, 'name');
  return (
    <form className="form stack" onSubmit={submit} aria-label="New network profile" noValidate>
      <div className="field-row">
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            ref={nameRef}
            value={name}
            maxLength={64}
            placeholder="flaky-4g"
            autoComplete="off"
            aria-invalid={nameErrors.length > 0}
            aria-describedby={`${nameId}-hint${nameErrors.length ? ` ${nameId}-errors` : ''}`}
            onChange={(event) => setName(event.target.value)}
          />
          <span className="hint" id={`${nameId}-hint`}>
            Letters, digits, - and _; the name a spec uses.
          </span>
          <FieldMessages id={`${nameId}-errors`} messages={nameErrors} />
        </div>
        <div className="field">
          <label htmlFor={descriptionId}>Description (optional)</label>
          <input
            id={descriptionId}
            value={description}
            maxLength={500}
            onChange={(event) => setDescription(event.target.value)}
          />
          <FieldMessages id={`${descriptionId}-errors`} messages={fieldMessages(errors, 'description')} />
        </div>
      </div>
      {DIRECTIONS.map((direction) => (
        <fieldset className="fieldset" key={direction.key}>
          <legend>{direction.label}</legend>
          <div className="field-row">
            {DIRECTION_FIELDS.map((field) =>
              numberField(`spec.${direction.key}.${field.key}`, `${direction.key}.${field.key}`, field, bounds.direction[field.key]),
            )}
          </div>
          <FieldMessages id={`${base}-${direction.key}-errors`} messages={directionLevel(errors, direction.key)} />
        </fieldset>
      ))}
      <fieldset className="fieldset">
        <legend>Blackouts</legend>
        <p className="hint">
          The link drops everything for a while, periodically (a train in a tunnel); up to {bounds.max_blackouts}.
        </p>
        {blackouts.map((id, index) => (
          <div className="field-row field-row-end" key={id}>
            {BLACKOUT_FIELDS.map((field) =>
              numberField(`spec.blackouts.${index}.${field.key}`, `blackout${id}.${field.key}`, field, bounds.blackout[field.key]),
            )}
            <button
              type="button"
              className="button button-ghost"
              onClick={() => setBlackouts((current) => current.filter((other) => other !== id))}
            >
              Remove blackout {index + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="button"
          disabled={blackouts.length >= bounds.max_blackouts}
          onClick={() => {
            setBlackouts((current) => [...current, nextBlackout]);
            setNextBlackout((value) => value + 1);
          }}
        >
          Add a blackout
        </button>
      </fieldset>
      <AdvancedFields
        bounds={bounds}
        values={values}
        errors={errors}
        set={set}
        numberField={numberField}
        open={advancedOpen}
        onToggle={setAdvancedOpen}
      />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create profile'}
        </button>
      </div>
      <ErrorSummary errors={errors} title="The profile was not created. Fix these fields:" />
      {createdName && (
        <p role="status" className="alert alert-info">
          Created <code>{createdName}</code>: name it in a spec's <code>network_profiles</code>.
        </p>
      )}
    </form>
  );
}

/** Messages about a direction as a whole (not one of the form's fields), e.g. its own rules across fields. */
function directionLevel(errors: FieldError[], direction: Direction): string[] {
  const shown = directionFieldPaths(direction);
  return errors
    .filter((error) => error.path.startsWith(`spec.${direction}`) && !shown.has(error.path))
    .map((error) => error.message);
}
