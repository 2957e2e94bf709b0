import {
  CONNECTION_POLICIES,
  PLATFORMS,
  PROTOCOLS,
  isPresetName,
  type ComparisonSpecRequest,
  type ConnectionPolicy,
  type Platform,
  type Preset,
  type Protocol,
  type SeriesWorkload,
  type SpecDevices,
} from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';

/** `endpoint`: the arm's own server (https://host[:port][/base]); empty: the runner's reference target. */
export type ArmDraft = { label: string; protocol: Protocol; connection: ConnectionPolicy; endpoint: string };

/** Where the runs go: a pool ('' = the server's default, `local`), its platforms, how many devices. */
export type DevicesDraft = { pool: string; platforms: Platform[]; count: string };

/** What the form edits; strings where the user types, so half-typed values survive. */
export type SpecDraft = {
  name: string;
  arms: ArmDraft[];
  baselineArm: string;
  blocks: string;
  networkProfiles: string[];
  /** Only for series workloads: comma-separated requests per period. */
  periods: string;
  repetitions: string;
  /** Only for series workloads: "sequential", "parallel N" or "all" (CONCURRENCY_CHOICES). */
  concurrency: string;
  /**
   * Paths on the arms' own servers instead of the reference target's: a series' object paths
   * (one per line), a payload sweep's path with {size}, a delay sweep's with {delay_ms}; empty:
   * the preset's. See CUSTOM_PATHS.
   */
  paths: string;
  /** Only for `mixed` (API calls and downloads): the downloads on the customer's server, one per line. */
  filePaths: string;
  devices: DevicesDraft;
};

/** The workload kinds whose requests can go to the customer's own paths, and how the builder asks. */
export const CUSTOM_PATHS: Record<string, { label: string; hint: string; placeholder: string }> = {
  series: {
    label: 'Object paths on your server (optional)',
    hint: 'One path or https:// URL per line, fetched in order and wrapping around; empty: the reference target’s images.',
    placeholder: '/img/hero.jpg\n/img/thumb-1.jpg',
  },
  payload_sweep: {
    label: 'Path on your server (optional)',
    hint: 'Must contain {size}, in the path or the query; fetched with GET. Empty: the reference target’s /bytes/{size} (POST).',
    placeholder: '/v1/blob?bytes={size}',
  },
  delay_sweep: {
    label: 'Path on your server (optional)',
    hint: 'Must contain {delay_ms}: your server answers after that many milliseconds. Empty: the reference target’s /delay/{delay_ms}.',
    placeholder: '/v1/slow/{delay_ms}',
  },
  api: {
    label: 'API call path on your server (optional)',
    hint: 'Each call POSTs the preset’s request body to it (query allowed); any status below 400 succeeds. Empty: the reference target’s /echo.',
    placeholder: '/v2/ping',
  },
  mixed: {
    label: 'API call path on your server (optional)',
    hint: 'Each call POSTs the preset’s request body to it (query allowed); any status below 400 succeeds. Empty: the reference target’s /echo.',
    placeholder: '/v2/ping',
  },
};

/** The workload kinds that also download files the customer can name (seeds/003's part B). */
export const CUSTOM_FILES: Record<string, { label: string; hint: string; placeholder: string }> = {
  mixed: {
    label: 'Downloads on your server (optional)',
    hint: 'One path or https:// URL per line, fetched in order on the connection the calls then use; empty: the reference target’s five files.',
    placeholder: '/img/1.jpg\n/img/2.jpg',
  },
};

/** What the builder offers for a series' concurrency (the spec takes any parallel N of 1–16). */
export const CONCURRENCY_CHOICES = ['sequential', 'parallel 2', 'parallel 4', 'parallel 6', 'parallel 8', 'all'];

/** A spec's workload.concurrency as the builder names it: "sequential", "parallel 4", "all". */
export function concurrencyText(value: unknown): string {
  if (value === 'parallel') return 'parallel 6';
  if (value === 'all' || value === 'sequential') return value;
  if (isObject(value) && typeof value['parallel'] === 'number') return `parallel ${value['parallel']}`;
  return 'sequential';
}

function parseConcurrency(text: string): SeriesWorkload['concurrency'] {
  const parallel = /^parallel (\d+)$/.exec(text);
  if (parallel) return { parallel: Number(parallel[1]) };
  return text === 'all' ? 'all' : 'sequential';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function asProtocol(value: unknown): Protocol {
  return PROTOCOLS.includes(value as Protocol) ? (value as Protocol) : 'h2';
}

function asConnection(value: unknown): ConnectionPolicy {
  return CONNECTION_POLICIES.includes(value as ConnectionPolicy) ? (value as ConnectionPolicy) : 'warm';
}

function isPlatform(value: unknown): value is Platform {
  return PLATFORMS.includes(value as Platform);
}

function devicesDraft(value: unknown): DevicesDraft {
  const devices = isObject(value) ? value : {};
  const platforms = Array.isArray(devices['platforms']) ? devices['platforms'].filter(isPlatform) : [];
  return {
    pool: typeof devices['pool'] === 'string' ? devices['pool'] : '',
    platforms: platforms.length ? platforms : ['host'],
    count: typeof devices['count'] === 'number' ? String(devices['count']) : '1',
  };
}

/** A preset's spec is free-form JSON in the API schema. */
function specOf(preset: Preset | undefined): Json {
  return isObject(preset?.spec) ? preset.spec : {};
}

export function presetWorkload(preset: Preset | undefined): Json {
  const workload = specOf(preset)['workload'];
  return isObject(workload) ? workload : {};
}

export function isSeriesWorkload(preset: Preset | undefined): boolean {
  return presetWorkload(preset)['kind'] === 'series';
}

export function draftFromPreset(preset: Preset | undefined): SpecDraft {
  const spec = specOf(preset);
  const rawArms = Array.isArray(spec['arms']) ? spec['arms'] : [];
  const arms: ArmDraft[] = rawArms.filter(isObject).map((arm) => ({
    label: typeof arm['label'] === 'string' ? arm['label'] : '',
    protocol: asProtocol(arm['protocol']),
    connection: asConnection(arm['connection']),
    endpoint: typeof arm['endpoint'] === 'string' ? arm['endpoint'] : '',
  }));
  const workload = presetWorkload(preset);
  const periods = Array.isArray(workload['periods']) ? workload['periods'].join(', ') : '';
  const profiles = Array.isArray(spec['network_profiles'])
    ? spec['network_profiles'].filter((p): p is string => typeof p === 'string')
    : ['none'];
  return {
    name: '',
    arms: arms.length ? arms : [{ label: 'h2', protocol: 'h2', connection: 'warm', endpoint: '' }],
    baselineArm: typeof spec['baseline_arm'] === 'string' ? spec['baseline_arm'] : (arms[0]?.label ?? ''),
    blocks: blocksText(spec['blocks']),
    networkProfiles: profiles.length ? profiles : ['none'],
    periods,
    repetitions: typeof workload['repetitions'] === 'number' ? String(workload['repetitions']) : '',
    concurrency: concurrencyText(workload['concurrency']),
    paths: '',
    filePaths: '',
    devices: devicesDraft(spec['devices']),
  };
}

export function defaultName(preset: Preset | undefined): string {
  const name = specOf(preset)['name'];
  return typeof name === 'string' ? name : (preset?.title ?? 'Comparison');
}

const WHOLE_NUMBER = /^\d+$/;
// Run until decided, typed as a range: "6–24", "6-24" or "6..24".
const BLOCK_RANGE = /^(\d+)\s*(?:-|–|\.\.)\s*(\d+)$/;

/** The spec's blocks as the form's text: "6", "6–24" (run until decided: min–max) or "auto". */
export function blocksText(blocks: unknown): string {
  if (typeof blocks === 'number') return String(blocks);
  if (blocks === 'auto') return 'auto';
  if (blocks && typeof blocks === 'object' && 'min' in blocks && 'max' in blocks) {
    const { min, max } = blocks;
    if (typeof min === 'number' && typeof max === 'number') return `${min}–${max}`;
  }
  return '';
}

/** The form's text as the spec's blocks; null when it is none of a number, a range or auto. */
export function parseBlocks(text: string): ComparisonSpecRequest['blocks'] | null {
  const value = text.trim();
  if (WHOLE_NUMBER.test(value)) return Number(value);
  if (value.toLowerCase() === 'auto') return 'auto';
  const range = BLOCK_RANGE.exec(value);
  return range ? { min: Number(range[1]), max: Number(range[2]) } : null;
}

/**
 * Builds the request body, or returns the errors the browser can already see. Bounds are
 * the server's business; here only "is it a number at all".
 */
export function buildSpec(
  preset: Preset | undefined,
  draft: SpecDraft,
): { spec: ComparisonSpecRequest; errors: [] } | { spec: null; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const spec: ComparisonSpecRequest = {
    name: draft.name.trim() || defaultName(preset),
    arms: draft.arms.map((arm) => {
      const endpoint = arm.endpoint.trim();
      return { label: arm.label.trim(), protocol: arm.protocol, connection: arm.connection, ...(endpoint ? { endpoint } : {}) };
    }),
    network_profiles: draft.networkProfiles,
  };
  if (preset && isPresetName(preset.name)) spec.preset = preset.name;
  if (draft.baselineArm) spec.baseline_arm = draft.baselineArm;
  if (draft.blocks.trim() !== '') {
    const blocks = parseBlocks(draft.blocks);
    if (blocks !== null) spec.blocks = blocks;
    else errors.push({ path: 'blocks', message: 'Enter a whole number, a range like 6–24 or auto.' });
  }
  if (draft.networkProfiles.length === 0) {
    errors.push({ path: 'network_profiles', message: 'Pick at least one network profile.' });
  }
  if (isSeriesWorkload(preset)) {
    // The preset's workload with the periods and repetitions typed here; the server merges
    // it with the preset's key by key.
    const workload: SeriesWorkload = { kind: 'series' };
    const parts = draft.periods
      .split(/[\s,]+/)
      .map((part) => part.trim())
      .filter(Boolean);
    if (parts.length === 0 || !parts.every((part) => WHOLE_NUMBER.test(part))) {
      errors.push({ path: 'workload.periods', message: 'Enter whole numbers separated by commas, e.g. 3, 6, 9.' });
    } else {
      workload.periods = parts.map(Number);
    }
    if (WHOLE_NUMBER.test(draft.repetitions.trim())) workload.repetitions = Number(draft.repetitions.trim());
    else errors.push({ path: 'workload.repetitions', message: 'Enter a whole number.' });
    // Only when it differs from the preset's, so the spec reads like one written by hand.
    if (draft.concurrency !== concurrencyText(presetWorkload(preset)['concurrency'])) {
      workload.concurrency = parseConcurrency(draft.concurrency);
    }
    const objectPaths = lines(draft.paths);
    if (objectPaths.length) workload.object_paths = objectPaths;
    spec.workload = workload;
  } else {
    const customPaths = customPathWorkload(presetWorkload(preset)['kind'], draft.paths.trim(), lines(draft.filePaths));
    if (customPaths) spec.workload = customPaths;
  }
  const devices = buildDevices(draft.devices, errors);
  if (devices) spec.devices = devices;
  return errors.length ? { spec: null, errors } : { spec, errors: [] };
}

/**
 * The spec's `devices`, or undefined when the draft says what the server assumes anyway (one
 * host of the default pool): a spec built here then reads like one written by hand.
 */
function buildDevices(draft: DevicesDraft, errors: FieldError[]): SpecDevices | undefined {
  const count = draft.count.trim();
  if (draft.platforms.length === 0) errors.push({ path: 'devices.platforms', message: 'Pick at least one platform.' });
  if (!WHOLE_NUMBER.test(count)) errors.push({ path: 'devices.count', message: 'Enter a whole number.' });
  const serverDefault = draft.pool === '' && draft.platforms.join() === 'host' && count === '1';
  if (serverDefault || !WHOLE_NUMBER.test(count)) return undefined;
  return { ...(draft.pool ? { pool: draft.pool } : {}), platforms: draft.platforms, count: Number(count) };
}

/** Non-empty trimmed lines of a textarea. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The customer's own paths for a workload (a sweep's template, the API call's path, the
 * downloads), merged key by key into the preset's workload; undefined when none is given.
 */
function customPathWorkload(kind: unknown, path: string, filePaths: string[]): Json | undefined {
  if (kind === 'payload_sweep' && path) return { kind, path, method: 'GET' };
  if ((kind === 'delay_sweep' || kind === 'api') && path) return { kind, path };
  if (kind === 'mixed' && (path || filePaths.length)) {
    return { kind, ...(path ? { path } : {}), ...(filePaths.length ? { file_paths: filePaths } : {}) };
  }
  return undefined;
}
