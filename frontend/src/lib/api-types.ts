/**
 * UI-facing names for the generated API types (src/api/schema.d.ts is generated from
 * ../backend/openapi.yaml by `npm run gen:api` and never edited). Features import from
 * here, so a renamed schema component is fixed in one place.
 */
import type { components } from '@/api/schema';

type Schemas = components['schemas'];

export type Me = Schemas['SessionOutput'];
export type LoginRequest = Schemas['LoginInputRequest'];
export type Preset = Schemas['Preset'];
export type ComparisonStatus = Schemas['ComparisonStatusEnum'];
export type Progress = Schemas['ComparisonProgress'];
export type ComparisonSummary = Schemas['ComparisonSummary'];
export type ComparisonPage = Schemas['PaginatedComparisonSummaryList'];
export type ComparisonDetail = Schemas['ComparisonDetail'];
export type Arm = Schemas['ArmOutput'];
export type Run = Schemas['RunOutput'];
export type RunStatus = Schemas['RunStatusEnum'];
export type ComparisonResults = Schemas['ComparisonResults'];
export type ResultGroup = Schemas['ResultGroup'];
export type ArmSeries = Schemas['ArmSeries'];
export type RequestStats = Schemas['RequestStats'];

/**
 * The spec body is documented loosely by the backend (`arms` and `workload` are free-form
 * JSON there, validated server-side); this is the part of it the form produces. It stays
 * assignable to the generated request type.
 */
export type Protocol = 'h1c' | 'h1' | 'h2' | 'h3' | 'grpc';
export type ConnectionPolicy = 'cold' | 'warm' | 'resumed';
export type ArmSpec = { label: string; protocol: Protocol; connection: ConnectionPolicy };
export type ComparisonSpecRequest = Omit<Schemas['ComparisonSpecInputRequest'], 'arms' | 'workload'> & {
  arms: ArmSpec[];
  workload?: Record<string, unknown>;
};

export const PROTOCOLS: readonly Protocol[] = ['h1c', 'h1', 'h2', 'h3', 'grpc'];
export const CONNECTION_POLICIES: readonly ConnectionPolicy[] = ['cold', 'warm', 'resumed'];
export const TERMINAL_STATUSES: readonly ComparisonStatus[] = ['finished', 'failed', 'cancelled'];

/**
 * The schema leaves `status` optional (it has a model default), but the API always sends it;
 * a missing one is read as "queued" so polling goes on rather than stopping early.
 */
export function statusOf(comparison: Pick<ComparisonSummary, 'status'>): ComparisonStatus {
  return comparison.status ?? 'queued';
}

export function isTerminal(status: ComparisonStatus | undefined): boolean {
  return status !== undefined && TERMINAL_STATUSES.includes(status);
}

/**
 * The metric the CI gate decides on: `spec.gate.metric` of a comparison (the detail's spec
 * is free-form JSON in the schema), total_ms when the spec has none, as the backend does.
 */
export function gateMetricOf(spec: unknown): string {
  if (typeof spec !== 'object' || spec === null) return 'total_ms';
  const gate = (spec as { gate?: unknown }).gate;
  if (typeof gate !== 'object' || gate === null) return 'total_ms';
  const metric = (gate as { metric?: unknown }).metric;
  return typeof metric === 'string' && metric !== '' ? metric : 'total_ms';
}
