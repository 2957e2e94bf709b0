import { PLATFORMS, type Platform } from '@/lib/api-types';
import { usePools } from '../api/get-pools';
import { FieldMessages } from '@/components/field-messages';
import type { DevicesDraft } from './spec-draft';

const PLATFORM_LABELS: Record<Platform, string> = { host: 'Host (Linux runner)', android: 'Android', ios: 'iOS' };

type DevicesFieldsetProps = {
  devices: DevicesDraft;
  onChange: (patch: Partial<DevicesDraft>) => void;
  /** The form's messages for a field path and anything below it. */
  messages: (path: string) => string[];
};

/** Where the runs go: one run per device slot × network profile, each on another device. */
export function DevicesFieldset({ devices, onChange, messages }: DevicesFieldsetProps) {
  const pools = usePools();
  const toggle = (platform: Platform) =>
    onChange({
      // Kept in the API's order, whatever order they were ticked in.
      platforms: PLATFORMS.filter((candidate) =>
        candidate === platform ? !devices.platforms.includes(candidate) : devices.platforms.includes(candidate),
      ),
    });
  const countMessages = messages('devices.count');
  return (
    <fieldset className="fieldset">
      <legend>Devices</legend>
      <div className="field-row">
        <div className="field">
          <label htmlFor="spec-pool">Device pool</label>
          <select id="spec-pool" value={devices.pool} onChange={(event) => onChange({ pool: event.target.value })}>
            <option value="">Default (local)</option>
            {(pools.data ?? []).map((pool) => (
              <option key={pool.slug} value={pool.slug}>
                {pool.name} ({pool.slug}) · {pool.devices.total} devices
              </option>
            ))}
          </select>
          {pools.isError && <p className="hint">Could not load the pools: {pools.error.message}</p>}
          <FieldMessages id="devices-pool-error" messages={messages('devices.pool')} />
        </div>
        <div className="field">
          <label htmlFor="spec-device-count">Devices per network profile</label>
          <input
            id="spec-device-count"
            inputMode="numeric"
            value={devices.count}
            onChange={(event) => onChange({ count: event.target.value })}
            aria-invalid={countMessages.length > 0 || undefined}
            aria-describedby={countMessages.length ? 'devices-count-error' : undefined}
          />
          <p className="hint">One run per device, each on a different device of the platforms below.</p>
          <FieldMessages id="devices-count-error" messages={countMessages} />
        </div>
      </div>
      <div className="chip-group" role="group" aria-label="Platforms">
        {PLATFORMS.map((platform) => (
          <label key={platform} className="chip">
            <input
              type="checkbox"
              checked={devices.platforms.includes(platform)}
              onChange={() => toggle(platform)}
            />
            <span>{PLATFORM_LABELS[platform]}</span>
          </label>
        ))}
      </div>
      <p className="hint">
        A run may land on any selected platform, so each must measure every arm: iOS measures h2, h3 and gRPC only
        (URLSession cannot force HTTP/1.1).
      </p>
      <FieldMessages id="devices-platforms-error" messages={messages('devices.platforms')} />
    </fieldset>
  );
}
