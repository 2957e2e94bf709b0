import { FieldMessages } from '@/components/field-messages';
import type { NetworkProfile } from '@/lib/api-types';

type NetworkProfilesFieldsetProps = {
  /** GET /api/v1/network-profiles: the built-in ones and the organization's own. */
  profiles: NetworkProfile[];
  chosen: string[];
  onToggle: (profile: string) => void;
  messages: string[];
};

/** The network profiles the runs go through: one run per device slot and profile. */
export function NetworkProfilesFieldset({ profiles, chosen, onToggle, messages }: NetworkProfilesFieldsetProps) {
  return (
    <fieldset className="fieldset">
      <legend>Network profiles</legend>
      <div className="chip-group">
        {profiles.map((profile) => (
          <label key={profile.name} className="chip" title={profileSummary(profile)}>
            <input type="checkbox" checked={chosen.includes(profile.name)} onChange={() => onToggle(profile.name)} />
            <span>{profile.name}</span>
            {!profile.built_in && <span className="tag">own</span>}
          </label>
        ))}
      </div>
      <FieldMessages id="network_profiles-error" messages={messages} />
    </fieldset>
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
