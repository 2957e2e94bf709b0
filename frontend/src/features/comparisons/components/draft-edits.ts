import { nextArm, type ArmDraft, type SpecDraft } from './spec-draft';

/** The builder's edits of its arms and profiles, each a new draft from the current one. */

/** Changes one arm; renaming the baseline arm keeps it the baseline under its new label. */
export function withArmChanged(draft: SpecDraft, index: number, patch: Partial<ArmDraft>): SpecDraft {
  const arms = draft.arms.map((arm, i) => (i === index ? { ...arm, ...patch } : arm));
  const renamed = patch.label !== undefined && draft.arms[index]?.label === draft.baselineArm;
  return { ...draft, arms, baselineArm: renamed ? (patch.label ?? '') : draft.baselineArm };
}

/** A third arm beside h3 takes the next protocol not taken yet; otherwise a numbered h3 arm. */
export function withArmAdded(draft: SpecDraft): SpecDraft {
  const added: ArmDraft =
    draft.arms.length === 2 && draft.arms.some((arm) => arm.label === 'h3')
      ? nextArm(draft.arms)
      : { label: `arm-${draft.arms.length + 1}`, protocol: 'h3', connection: 'warm', endpoint: '', caBundle: '' };
  return { ...draft, arms: [...draft.arms, added] };
}

/** Removes one arm; removing the baseline makes the first arm left the baseline. */
export function withArmRemoved(draft: SpecDraft, index: number): SpecDraft {
  const removed = draft.arms[index];
  const arms = draft.arms.filter((_, i) => i !== index);
  const baselineArm = removed?.label === draft.baselineArm ? (arms[0]?.label ?? '') : draft.baselineArm;
  return { ...draft, arms, baselineArm };
}

/** Ticks a network profile, or unticks it. */
export function withProfileToggled(draft: SpecDraft, profile: string): SpecDraft {
  return {
    ...draft,
    networkProfiles: draft.networkProfiles.includes(profile)
      ? draft.networkProfiles.filter((p) => p !== profile)
      : [...draft.networkProfiles, profile],
  };
}
