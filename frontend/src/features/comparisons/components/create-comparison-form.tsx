import { usePresets } from '../api/get-presets';
import { useComparison } from '../api/get-comparison';
import { useNetworkProfiles } from '../api/get-network-profiles';
import { Spinner } from '@/components/spinner';
import { ErrorSummary } from '@/components/field-messages';
import type { ComparisonDetail, NetworkProfile, Preset } from '@/lib/api-types';
import { ArmsFieldset } from './arms-fieldset';
import { BuilderSummary } from './builder-summary';
import { RunOptionsFieldset } from './builder-fieldsets';
import { DetailsFieldset } from './details-fieldset';
import { DevicesFieldset } from './devices-fieldset';
import { NetworkProfilesFieldset } from './network-profiles-fieldset';
import { PresetFieldset } from './preset-fieldset';
import { draftFromSpec, mergeWithPreset } from './spec-draft';
import { useSpecForm, type SpecFormStart } from './use-spec-form';

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

type SpecFormProps = {
  presets: Preset[];
  /** GET /api/v1/network-profiles: the built-in ones and the organization's own. */
  profiles: NetworkProfile[];
  onCreated: CreateComparisonFormProps['onCreated'];
  /** Where the builder starts; default: the preferred preset. */
  start?: SpecFormStart;
};

/** The builder: one fieldset per part of the spec, then the estimate, the live check and submit. */
function SpecForm({ presets, profiles, onCreated, start }: SpecFormProps) {
  const form = useSpecForm({ presets, onCreated, start });
  const { draft, messages } = form;
  return (
    <form className="form form-wide" onSubmit={form.handleSubmit} aria-label="New comparison" noValidate>
      <ErrorSummary errors={form.errors} />
      <PresetFieldset
        presets={presets}
        presetName={form.presetName}
        copyOf={form.copyOf}
        onSelect={form.selectPreset}
        onStartFromScratch={form.startFromScratch}
      />
      <DetailsFieldset
        draft={draft}
        preset={form.preset}
        presetName={form.presetName}
        update={form.update}
        shown={form.shown}
        messages={messages}
      />
      <ArmsFieldset
        arms={draft.arms}
        baselineArm={draft.baselineArm}
        onChangeArm={form.updateArm}
        onAddArm={form.addArm}
        onRemoveArm={form.removeArm}
        onChangeBaseline={(baselineArm) => form.update({ baselineArm })}
        messages={messages}
        armsMessages={form.shown.filter((error) => error.path === 'arms').map((error) => error.message)}
      />
      <NetworkProfilesFieldset
        profiles={profiles}
        chosen={draft.networkProfiles}
        onToggle={form.toggleProfile}
        messages={messages('network_profiles')}
      />
      <DevicesFieldset devices={draft.devices} onChange={form.updateDevices} messages={messages} />
      <RunOptionsFieldset draft={draft} update={form.update} messages={messages} />
      <BuilderSummary
        spec={form.built.spec}
        live={form.live}
        showProblems={form.errors.length === 0}
        submit={
          <button type="submit" className="button button-primary" disabled={form.creating}>
            {form.creating ? 'Creating…' : 'Create comparison'}
          </button>
        }
      />
    </form>
  );
}
