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
import { gateMetricsOf } from '@/lib/gate-metrics';

/**
 * `endpoint`: the arm's own server (https://host[:port][/base]); empty: the runner's reference target.
 * `caBundle`: PEM certificates the arm trusts besides the system's (a staging server's own CA).
 */
export type ArmDraft = {
  label: string;
  protocol: Protocol;
  connection: ConnectionPolicy;
  endpoint: string;
  caBundle?: string;
};

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
  /** The workload's kind: the preset's unless changed (then the server's defaults for that kind). */
  workloadKind: WorkloadKind;
  /** The other fields of the workload (WORKLOAD_FIELDS), as typed; '' = the preset's or the server's default. */
  workloadFields: Record<string, string>;
  /** Only for `requests`: the request list as JSON (the HAR import builds one from a recording). */
  requestsJson: string;
  /** '' = a random seed, recorded. */
  seed: string;
  /** One `key=value` per line (branch=main); CI baselines are found by them. */
  tags: string;
  /** The CI gate; '' = the preset's or the server's default. */
  gate: { metric: string; marginPct: string; alpha: string };
  /** Per-request timeout in seconds; '' = default. */
  timeout: string;
  /** aa: the one arm measured twice (the false-positive check). */
  mode: 'ab' | 'aa';
};

export const WORKLOAD_KINDS = ['series', 'api', 'mixed', 'delay_sweep', 'payload_sweep', 'requests'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export const WORKLOAD_KIND_LABELS: Record<WorkloadKind, string> = {
  series: 'Series of image requests (series)',
  api: 'API calls (api)',
  mixed: 'API calls and downloads (mixed)',
  delay_sweep: 'Server delay sweep (delay_sweep)',
  payload_sweep: 'Response size sweep (payload_sweep)',
  requests: 'Your own request list (requests)',
};

/** A workload field the builder shows as a plain input; its bounds are the server's (spec.schema.json). */
export type WorkloadField = { key: string; label: string; list?: boolean; hint?: string };

/**
 * The fields of each kind besides those with a control of their own (periods, repetitions
 * and concurrency of a series, paths, downloads, the request list).
 */
export const WORKLOAD_FIELDS: Record<WorkloadKind, WorkloadField[]> = {
  series: [
    { key: 'warmup', label: 'Warm-up series (not measured)' },
    { key: 'gap_ms', label: 'Gap between series (ms)' },
  ],
  api: [
    { key: 'rounds', label: 'Rounds' },
    { key: 'calls', label: 'Calls per round' },
    { key: 'request_bytes', label: 'Request body (bytes)' },
    { key: 'warmup', label: 'Warm-up rounds' },
  ],
  mixed: [
    { key: 'rounds', label: 'Rounds' },
    { key: 'calls', label: 'Calls per round' },
    { key: 'request_bytes', label: 'Request body (bytes)' },
    { key: 'warmup', label: 'Warm-up rounds' },
  ],
  delay_sweep: [
    { key: 'start_ms', label: 'First delay (ms)' },
    { key: 'stop_ms', label: 'Last delay (ms)' },
    { key: 'step_ms', label: 'Step (ms)' },
    { key: 'trials', label: 'Trials per step' },
    { key: 'warmup', label: 'Warm-up requests' },
  ],
  payload_sweep: [
    { key: 'sizes', label: 'Response sizes (bytes)', list: true, hint: 'Comma-separated, e.g. 1000, 100000, 1000000.' },
    { key: 'repetitions', label: 'Repetitions per size' },
    { key: 'request_bytes', label: 'Request body (bytes, POST)' },
    { key: 'warmup', label: 'Warm-up requests' },
  ],
  requests: [
    { key: 'repetitions', label: 'Repetitions of the list' },
    { key: 'warmup', label: 'Warm-up passes' },
    { key: 'think_ms', label: 'Think time between requests (ms)' },
  ],
};

/** The kinds whose requests may be issued concurrently (the spec's CONCURRENCY_KINDS). */
export const CONCURRENCY_KINDS: readonly WorkloadKind[] = ['series', 'api', 'requests'];

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

function parseConcurrency(text: string): NonNullable<SeriesWorkload['concurrency']> {
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

function isWorkloadKind(value: unknown): value is WorkloadKind {
  return WORKLOAD_KINDS.includes(value as WorkloadKind);
}

/** A field's value as the form's text: numbers as they are, lists comma-separated. */
function fieldText(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  if (Array.isArray(value)) return value.join(', ');
  return '';
}

function workloadFieldTexts(workload: Json, kind: WorkloadKind): Record<string, string> {
  return Object.fromEntries(WORKLOAD_FIELDS[kind].map((field) => [field.key, fieldText(workload[field.key])]));
}

/** A new arm's protocol: the next of h2, h3, h1 not taken yet. */
export function nextArm(arms: ArmDraft[]): ArmDraft {
  const taken = new Set(arms.map((arm) => arm.label));
  const protocol = (['h2', 'h3', 'h1', 'grpc', 'h1c'] as Protocol[]).find((p) => !taken.has(p)) ?? 'h3';
  const label = taken.has(protocol) ? `arm-${arms.length + 1}` : protocol;
  return { label, protocol, connection: 'warm', endpoint: '', caBundle: '' };
}

/** Starting from scratch: two arms over the reference target's API calls, the server's defaults. */
export const SCRATCH_SPEC: Json = {
  name: 'New comparison',
  workload: { kind: 'api' },
  arms: [
    { label: 'h2', protocol: 'h2', connection: 'warm' },
    { label: 'h3', protocol: 'h3', connection: 'warm' },
  ],
  network_profiles: ['none'],
};

/**
 * A submitted spec merged with its preset as the server merges them (apps/comparisons/spec.py
 * merge_preset): the fields given override the preset's, the workload key by key when the
 * kind is the same, and given arms drop the preset's baseline arm.
 */
export function mergeWithPreset(submitted: Json, preset: Preset | undefined): Json {
  if (!preset) return submitted;
  const merged: Json = structuredClone(specOf(preset));
  for (const [key, value] of Object.entries(submitted)) {
    const current = merged['workload'];
    if (key === 'workload' && isObject(value) && isObject(current) && (value['kind'] ?? current['kind']) === current['kind']) {
      merged['workload'] = { ...current, ...value };
    } else {
      merged[key] = value;
    }
  }
  if ('arms' in submitted && !('baseline_arm' in submitted)) delete merged['baseline_arm'];
  return merged;
}

export function draftFromPreset(preset: Preset | undefined): SpecDraft {
  return draftFromSpec(specOf(preset));
}

/** The form's draft of a (merged) spec: a preset's, a previous comparison's or SCRATCH_SPEC. */
export function draftFromSpec(spec: Json, { keepName = false } = {}): SpecDraft {
  const rawArms = Array.isArray(spec['arms']) ? spec['arms'] : [];
  const arms: ArmDraft[] = rawArms.filter(isObject).map((arm) => ({
    label: typeof arm['label'] === 'string' ? arm['label'] : '',
    protocol: asProtocol(arm['protocol']),
    connection: asConnection(arm['connection']),
    endpoint: typeof arm['endpoint'] === 'string' ? arm['endpoint'] : '',
    caBundle: typeof arm['ca_bundle'] === 'string' ? arm['ca_bundle'] : '',
  }));
  const workload = isObject(spec['workload']) ? spec['workload'] : {};
  const kind: WorkloadKind = isWorkloadKind(workload['kind']) ? workload['kind'] : 'series';
  const gate = isObject(spec['gate']) ? spec['gate'] : {};
  const tags = isObject(spec['tags']) ? spec['tags'] : {};
  const objectPaths = Array.isArray(workload['object_paths']) ? workload['object_paths'] : [];
  const filePaths = Array.isArray(workload['file_paths']) ? workload['file_paths'] : [];
  const periods = Array.isArray(workload['periods']) ? workload['periods'].join(', ') : '';
  const profiles = Array.isArray(spec['network_profiles'])
    ? spec['network_profiles'].filter((p): p is string => typeof p === 'string')
    : ['none'];
  return {
    name: keepName && typeof spec['name'] === 'string' ? spec['name'] : '',
    arms: arms.length ? arms : [{ label: 'h2', protocol: 'h2', connection: 'warm', endpoint: '', caBundle: '' }],
    baselineArm: typeof spec['baseline_arm'] === 'string' ? spec['baseline_arm'] : (arms[0]?.label ?? ''),
    blocks: blocksText(spec['blocks']),
    networkProfiles: profiles.length ? profiles : ['none'],
    periods,
    repetitions: kind === 'series' && typeof workload['repetitions'] === 'number' ? String(workload['repetitions']) : '',
    concurrency: concurrencyText(workload['concurrency']),
    paths: objectPaths.length ? objectPaths.join('\n') : typeof workload['path'] === 'string' ? workload['path'] : '',
    filePaths: filePaths.join('\n'),
    devices: devicesDraft(spec['devices']),
    workloadKind: kind,
    workloadFields: workloadFieldTexts(workload, kind),
    requestsJson: Array.isArray(workload['requests']) ? JSON.stringify(workload['requests'], null, 2) : '',
    seed: typeof spec['seed'] === 'number' ? String(spec['seed']) : '',
    tags: Object.entries(tags)
      .map(([key, value]) => `${key}=${String(value)}`)
      .join('\n'),
    gate: {
      metric: typeof gate['metric'] === 'string' ? gate['metric'] : '',
      marginPct: fieldText(gate['margin_pct']),
      alpha: fieldText(gate['alpha']),
    },
    timeout: fieldText(spec['timeout_s']),
    mode: spec['mode'] === 'aa' ? 'aa' : 'ab',
  };
}

/** The draft after switching the workload kind: that kind's fields from the preset when it has that kind, else empty. */
export function withWorkloadKind(draft: SpecDraft, kind: WorkloadKind, preset: Preset | undefined): SpecDraft {
  const presetWork = presetWorkload(preset);
  const fromPreset = presetWork['kind'] === kind ? presetWork : {};
  // A gate metric the new kind does not allow (series time of a request list) falls back to its default.
  const metric = (gateMetricsOf(kind) as readonly string[]).includes(draft.gate.metric) ? draft.gate.metric : '';
  return {
    ...draft,
    gate: { ...draft.gate, metric },
    workloadKind: kind,
    workloadFields: workloadFieldTexts(fromPreset, kind),
    periods: kind === 'series' ? fieldText(fromPreset['periods']) || '3, 6, 9, 12, 15, 18, 21, 24, 27, 30' : draft.periods,
    repetitions: kind === 'series' ? fieldText(fromPreset['repetitions']) || '12' : draft.repetitions,
    concurrency: concurrencyText(fromPreset['concurrency']),
    paths: '',
    filePaths: '',
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
 * the server's business; here only "is it a number at all". Against a preset, only what
 * differs from it is sent (the server merges the rest), so the spec reads like one written
 * by hand; from scratch, or with another workload kind, the whole workload is.
 */
export function buildSpec(
  preset: Preset | undefined,
  draft: SpecDraft,
): { spec: ComparisonSpecRequest; errors: [] } | { spec: null; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const base = specOf(preset);
  const spec: ComparisonSpecRequest = {
    name: draft.name.trim() || defaultName(preset),
    arms: draft.arms.map((arm) => {
      const endpoint = arm.endpoint.trim();
      const caBundle = (arm.caBundle ?? '').trim();
      return {
        label: arm.label.trim(),
        protocol: arm.protocol,
        connection: arm.connection,
        ...(endpoint ? { endpoint } : {}),
        ...(caBundle ? { ca_bundle: `${caBundle}\n` } : {}),
      };
    }),
    network_profiles: draft.networkProfiles,
  };
  if (preset && isPresetName(preset.name)) spec.preset = preset.name;
  if (draft.mode === 'aa') spec.mode = 'aa';
  if (draft.baselineArm) spec.baseline_arm = draft.baselineArm;
  if (draft.blocks.trim() !== '') {
    const blocks = parseBlocks(draft.blocks);
    if (blocks !== null) spec.blocks = blocks;
    else errors.push({ path: 'blocks', message: 'Enter a whole number, a range like 6–24 or auto.' });
  }
  if (draft.networkProfiles.length === 0) {
    errors.push({ path: 'network_profiles', message: 'Pick at least one network profile.' });
  }
  const workload = buildWorkload(preset, draft, errors);
  if (workload) spec.workload = workload;
  const devices = buildDevices(draft.devices, errors);
  if (devices) spec.devices = devices;
  buildExtras(base, draft, spec, errors);
  return errors.length ? { spec: null, errors } : { spec, errors: [] };
}

/** The workload to send, or undefined when it is the preset's unchanged. */
function buildWorkload(preset: Preset | undefined, draft: SpecDraft, errors: FieldError[]): Json | undefined {
  const kind = draft.workloadKind;
  const presetWork = presetWorkload(preset);
  const sameKind = preset !== undefined && presetWork['kind'] === kind;
  const workload: Json =
    kind === 'series'
      ? { kind }
      : (customPathWorkload(kind, draft.paths.trim(), lines(draft.filePaths)) ?? { kind });
  if (kind === 'series') {
    // The periods and repetitions typed here; the server merges them with the preset's key by key.
    const parts = draft.periods
      .split(/[\s,]+/)
      .map((part) => part.trim())
      .filter(Boolean);
    if (parts.length === 0 || !parts.every((part) => WHOLE_NUMBER.test(part))) {
      errors.push({ path: 'workload.periods', message: 'Enter whole numbers separated by commas, e.g. 3, 6, 9.' });
    } else {
      workload['periods'] = parts.map(Number);
    }
    if (WHOLE_NUMBER.test(draft.repetitions.trim())) workload['repetitions'] = Number(draft.repetitions.trim());
    else errors.push({ path: 'workload.repetitions', message: 'Enter a whole number.' });
    const objectPaths = lines(draft.paths);
    if (objectPaths.length) workload['object_paths'] = objectPaths;
  }
  if (CONCURRENCY_KINDS.includes(kind)) {
    // Only when it differs from the preset's, so the spec reads like one written by hand.
    const presetConcurrency = sameKind ? concurrencyText(presetWork['concurrency']) : 'sequential';
    if (draft.concurrency !== presetConcurrency) workload['concurrency'] = parseConcurrency(draft.concurrency);
  }
  for (const field of WORKLOAD_FIELDS[kind]) {
    const text = (draft.workloadFields[field.key] ?? '').trim();
    if (text === '' || (sameKind && text === fieldText(presetWork[field.key]))) continue;
    const path = `workload.${field.key}`;
    if (field.list) {
      const parts = text.split(/[\s,]+/).filter(Boolean);
      if (parts.every((part) => WHOLE_NUMBER.test(part))) workload[field.key] = parts.map(Number);
      else errors.push({ path, message: 'Enter whole numbers separated by commas.' });
    } else if (WHOLE_NUMBER.test(text)) {
      workload[field.key] = Number(text);
    } else {
      errors.push({ path, message: 'Enter a whole number.' });
    }
  }
  if (kind === 'requests') {
    const text = draft.requestsJson.trim();
    const unchanged = sameKind && Array.isArray(presetWork['requests']) && text === JSON.stringify(presetWork['requests'], null, 2);
    if (!unchanged) {
      let requests: unknown = undefined;
      try {
        requests = text ? JSON.parse(text) : undefined;
      } catch {
        requests = undefined;
      }
      if (Array.isArray(requests)) workload['requests'] = requests;
      else errors.push({ path: 'workload.requests', message: 'Enter the requests as a JSON list, e.g. [{"path": "/v1/feed"}].' });
    }
  }
  if (kind === 'series' || !sameKind || Object.keys(workload).length > 1) return workload;
  return undefined;
}

/** Seed, tags, gate, timeout: sent when given (and, against a preset, when they differ from it). */
function buildExtras(base: Json, draft: SpecDraft, spec: ComparisonSpecRequest, errors: FieldError[]) {
  const seed = draft.seed.trim();
  if (seed !== '') {
    if (WHOLE_NUMBER.test(seed)) spec.seed = Number(seed);
    else errors.push({ path: 'seed', message: 'Enter a whole number, or leave empty for a random seed.' });
  }
  const tags: Record<string, string> = {};
  for (const line of lines(draft.tags)) {
    const at = line.indexOf('=');
    if (at <= 0) {
      errors.push({ path: 'tags', message: `Write each tag as key=value: ${line}` });
      continue;
    }
    tags[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (Object.keys(tags).length) spec.tags = tags;
  const baseGate = isObject(base['gate']) ? base['gate'] : {};
  const gate: Json = {};
  const { metric, marginPct, alpha } = draft.gate;
  if (metric) gate['metric'] = metric;
  for (const [key, text] of [
    ['margin_pct', marginPct.trim()],
    ['alpha', alpha.trim()],
  ] as const) {
    if (text === '') continue;
    const value = Number(text);
    if (Number.isFinite(value)) gate[key] = value;
    else errors.push({ path: `gate.${key}`, message: 'Enter a number.' });
  }
  const gateChanged = Object.entries(gate).some(([key, value]) => baseGate[key] !== value);
  if (gateChanged) spec.gate = gate;
  const timeout = draft.timeout.trim();
  if (timeout !== '' && timeout !== fieldText(base['timeout_s'])) {
    if (WHOLE_NUMBER.test(timeout)) spec.timeout_s = Number(timeout);
    else errors.push({ path: 'timeout_s', message: 'Enter a whole number of seconds.' });
  }
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
