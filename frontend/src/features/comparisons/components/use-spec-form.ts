import { useMemo, useState, type FormEvent } from 'react';
import { useCreateComparison } from '../api/create-comparison';
import { useLiveValidation } from '../api/validate-comparison';
import { fieldMessages } from '@/components/field-messages';
import { ApiError } from '@/lib/api-client';
import type { ComparisonDetail, Preset } from '@/lib/api-types';
import { flattenFieldErrors, type FieldError } from '@/lib/field-errors';
import { withArmAdded, withArmChanged, withArmRemoved, withProfileToggled } from './draft-edits';
import {
  buildSpec,
  draftFromPreset,
  draftFromSpec,
  SCRATCH_SPEC,
  type ArmDraft,
  type DevicesDraft,
  type SpecDraft,
} from './spec-draft';

const PREFERRED_PRESET = 'mid-image-series';

/** Where the builder starts: a preset and its draft, or a copy of an earlier comparison. */
export type SpecFormStart = { presetName: string; draft: SpecDraft; copyOf?: string };

type SpecFormOptions = {
  presets: Preset[];
  onCreated: (comparison: ComparisonDetail) => void;
  /** Default: the preferred preset. */
  start?: SpecFormStart;
};

function errorsFrom(error: unknown): FieldError[] {
  if (error instanceof ApiError) {
    const flat = flattenFieldErrors(error.body);
    return flat.length ? flat : [{ path: '', message: error.message }];
  }
  return [{ path: '', message: error instanceof Error ? error.message : String(error) }];
}

/**
 * The builder's state: the chosen preset, the draft and its edits, the spec built from it with
 * the server's live check, and the submit. Messages at a field are what submit was refused
 * with, else what the live check says now; any edit clears what submit was refused with.
 */
export function useSpecForm({ presets, onCreated, start }: SpecFormOptions) {
  const initial = presets.find((preset) => preset.name === PREFERRED_PRESET) ?? presets[0];
  const [presetName, setPresetName] = useState(start ? start.presetName : (initial?.name ?? ''));
  const preset = presets.find((candidate) => candidate.name === presetName);
  const [draft, setDraftState] = useState<SpecDraft>(() => start?.draft ?? draftFromPreset(initial));
  const [copyOf, setCopyOf] = useState(start?.copyOf);
  // What the server (or the browser) refused on submit; cleared by the next edit.
  const [errors, setErrors] = useState<FieldError[]>([]);
  const create = useCreateComparison();
  const edit = (change: (current: SpecDraft) => SpecDraft) => {
    setErrors([]);
    setDraftState(change);
  };

  const built = useMemo(() => buildSpec(preset, draft), [preset, draft]);
  const live = useLiveValidation(built.spec, built.errors);
  const liveErrors = live.state === 'invalid' ? live.errors : [];
  const shown = errors.length ? errors : liveErrors;

  const selectPreset = (next: Preset) => {
    setPresetName(next.name);
    setCopyOf(undefined);
    edit(() => draftFromPreset(next));
  };
  const startFromScratch = () => {
    setPresetName('');
    setCopyOf(undefined);
    edit(() => draftFromSpec(SCRATCH_SPEC));
  };

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

  return {
    presetName,
    preset,
    copyOf,
    draft,
    built,
    live,
    /** What submit was refused with (the summary above the form). */
    errors,
    /** What the fields show: what submit was refused with, else the live check's problems. */
    shown,
    messages: (path: string) => fieldMessages(shown, path),
    creating: create.isPending,
    selectPreset,
    startFromScratch,
    update: (patch: Partial<SpecDraft>) => edit((current) => ({ ...current, ...patch })),
    updateDevices: (patch: Partial<DevicesDraft>) =>
      edit((current) => ({ ...current, devices: { ...current.devices, ...patch } })),
    updateArm: (index: number, patch: Partial<ArmDraft>) => edit((current) => withArmChanged(current, index, patch)),
    addArm: () => edit(withArmAdded),
    removeArm: (index: number) => edit((current) => withArmRemoved(current, index)),
    toggleProfile: (profile: string) => edit((current) => withProfileToggled(current, profile)),
    handleSubmit,
  };
}
