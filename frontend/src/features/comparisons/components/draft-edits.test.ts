import { describe, expect, it } from 'vitest';
import { withArmAdded, withArmChanged, withArmRemoved, withProfileToggled } from './draft-edits';
import { draftFromSpec, SCRATCH_SPEC, type ArmDraft } from './spec-draft';

const arm = (label: string, protocol: ArmDraft['protocol'] = 'h2'): ArmDraft => ({
  label,
  protocol,
  connection: 'warm',
  endpoint: '',
  caBundle: '',
});
const draftWith = (arms: ArmDraft[], baselineArm: string) => ({ ...draftFromSpec(SCRATCH_SPEC), arms, baselineArm });

describe('the builder’s draft edits', () => {
  it('keeps the baseline when its arm is renamed, and leaves it when another is', () => {
    const draft = draftWith([arm('h2'), arm('h3', 'h3')], 'h2');
    expect(withArmChanged(draft, 0, { label: 'old' }).baselineArm).toBe('old');
    const renamedOther = withArmChanged(draft, 1, { label: 'new' });
    expect(renamedOther.baselineArm).toBe('h2');
    expect(renamedOther.arms.map((a) => a.label)).toEqual(['h2', 'new']);
  });

  it('adds the next protocol beside h2 and h3, and a numbered h3 arm otherwise', () => {
    const third = withArmAdded(draftWith([arm('h2'), arm('h3', 'h3')], 'h2')).arms[2];
    expect(third).toMatchObject({ label: 'h1', protocol: 'h1' });
    const second = withArmAdded(draftWith([arm('a')], 'a')).arms[1];
    expect(second).toMatchObject({ label: 'arm-2', protocol: 'h3' });
  });

  it('makes the first arm left the baseline when the baseline is removed', () => {
    const draft = draftWith([arm('a'), arm('b'), arm('c')], 'a');
    expect(withArmRemoved(draft, 0)).toMatchObject({ baselineArm: 'b' });
    expect(withArmRemoved(draft, 2)).toMatchObject({ baselineArm: 'a' });
  });

  it('ticks a network profile, and unticks it', () => {
    const draft = { ...draftWith([arm('a')], 'a'), networkProfiles: ['wifi'] };
    expect(withProfileToggled(draft, '4g').networkProfiles).toEqual(['wifi', '4g']);
    expect(withProfileToggled(draft, 'wifi').networkProfiles).toEqual([]);
  });
});
