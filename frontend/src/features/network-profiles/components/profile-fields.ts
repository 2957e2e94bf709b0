// The fields of a custom profile's form and how their inputs become a spec. Labels and units
// live here; bounds come from GET /api/v1/network-profiles/bounds, never from here.

export type FieldSpec = { key: string; label: string; unit: string };

/** Per direction, always shown. */
export const DIRECTION_FIELDS: FieldSpec[] = [
  { key: 'delay_ms', label: 'Delay', unit: 'ms' },
  { key: 'jitter_ms', label: 'Jitter', unit: 'ms' },
  { key: 'loss_pct', label: 'Loss', unit: '%' },
  { key: 'rate_kbit', label: 'Rate', unit: 'kbit/s' },
  { key: 'queue_packets', label: 'Queue', unit: 'packets' },
];
/** Per direction, in the Advanced section. */
export const ADVANCED_NUMBER_FIELDS: FieldSpec[] = [{ key: 'jitter_correlation_pct', label: 'Jitter correlation', unit: '%' }];
/** A direction's Gilbert-Elliott loss (loss model gilbert_elliott): the four-state parameters, or a mean burst. */
export const GILBERT_FIELDS: FieldSpec[] = [
  { key: 'p', label: 'p, good → bad', unit: '%' },
  { key: 'r', label: 'r, bad → good', unit: '%' },
  { key: 'h', label: 'h, delivered in bad', unit: '%' },
  { key: 'k', label: 'k, delivered in good', unit: '%' },
];
export const BURST_FIELD: FieldSpec = { key: 'burst', label: 'Mean loss burst', unit: 'packets' };
export const BLACKOUT_FIELDS: FieldSpec[] = [
  { key: 'every_s', label: 'Every', unit: 's' },
  { key: 'duration_s', label: 'For', unit: 's' },
  { key: 'offset_s', label: 'First after', unit: 's' },
];
export const DIRECTIONS = [
  { key: 'down', label: 'Downlink (target → device)' },
  { key: 'up', label: 'Uplink (device → target)' },
] as const;
export type Direction = (typeof DIRECTIONS)[number]['key'];

/** The form's raw inputs by state key ("down.delay_ms", "down.gilbert.p", "blackout3.every_s", "seed"). */
export type Values = Record<string, string>;

/** Empty inputs are left out, so the server's defaults apply; what is not a number goes as typed, for the server to name. */
export function numbers(values: Values, keys: string[], prefix: string): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const key of keys) {
    const raw = (values[`${prefix}${key}`] ?? '').trim();
    if (raw !== '') out[key] = Number.isNaN(Number(raw)) ? raw : Number(raw);
  }
  return out;
}

const keysOf = (fields: FieldSpec[]) => fields.map((field) => field.key);

function directionSpec(values: Values, direction: Direction): Record<string, unknown> {
  const spec: Record<string, unknown> = numbers(
    values,
    keysOf([...DIRECTION_FIELDS, ...ADVANCED_NUMBER_FIELDS, BURST_FIELD]),
    `${direction}.`,
  );
  if (values[`${direction}.reorder`] === 'true') spec['reorder'] = true;
  const model = values[`${direction}.loss_model`];
  if (model) spec['loss_model'] = model;
  const gilbert = numbers(values, keysOf(GILBERT_FIELDS), `${direction}.gilbert.`);
  if (Object.keys(gilbert).length > 0) spec['gilbert'] = gilbert;
  return spec;
}

/** The spec POST /api/v1/network-profiles takes, from the form's inputs and its blackout rows (by row id). */
export function buildSpec(values: Values, blackoutRows: number[]): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    down: directionSpec(values, 'down'),
    up: directionSpec(values, 'up'),
    blackouts: blackoutRows.map((id) => numbers(values, keysOf(BLACKOUT_FIELDS), `blackout${id}.`)),
  };
  const seed = numbers(values, ['seed'], '');
  return { ...spec, ...seed };
}

/** Paths of a direction's fields that the form shows at a field (the rest show at the direction). */
export function directionFieldPaths(direction: Direction): Set<string> {
  const prefix = `spec.${direction}`;
  return new Set([
    ...[...DIRECTION_FIELDS, ...ADVANCED_NUMBER_FIELDS, BURST_FIELD].map((field) => `${prefix}.${field.key}`),
    ...GILBERT_FIELDS.map((field) => `${prefix}.gilbert.${field.key}`),
    `${prefix}.gilbert`,
    `${prefix}.reorder`,
    `${prefix}.loss_model`,
  ]);
}

/** Whether an error's path belongs to a field of the Advanced section (which then opens to show it). */
export function isAdvancedPath(path: string): boolean {
  if (path === 'spec.seed') return true;
  return DIRECTIONS.some(({ key }) => {
    const basic = DIRECTION_FIELDS.some((field) => path === `spec.${key}.${field.key}`);
    return !basic && directionFieldPaths(key).has(path);
  });
}
