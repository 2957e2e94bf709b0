/**
 * UI-facing names for the generated API types (src/api/schema.ts is generated from
 * ../backend/openapi.yaml by `npm run gen:api` and never edited). Features import from
 * here, so a renamed schema component is fixed in one place.
 */
import {
  auditActionEnumValues,
  connectionPolicyValues,
  eventsEnumValues,
  platformValues,
  presetNameValues,
  protocolValues,
  roleEnumValues,
  scopesEnumValues,
  type components,
} from '@/api/schema';

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
export type NetworkProfile = Schemas['NetworkProfileOutput'];

// The comparison spec as submitted (the request body of POST /api/v1/comparisons).
export type ComparisonSpecRequest = Schemas['ComparisonSpecRequest'];
export type ArmSpec = Schemas['SpecArm'];
export type Protocol = Schemas['Protocol'];
export type ConnectionPolicy = Schemas['ConnectionPolicy'];
export type Workload = Schemas['Workload'];
export type SeriesWorkload = Schemas['SeriesWorkload'];
export type PresetName = Schemas['PresetName'];
export type SpecDevices = Schemas['SpecDevices'];
export type Platform = Schemas['Platform'];

// GET /api/v1/comparisons/{id}/results: the charts' aggregates and the engine's analysis.
export type ComparisonResults = Schemas['ComparisonResults'];
export type ResultGroup = Schemas['ResultGroup'];
export type ArmSeries = Schemas['ArmSeries'];
export type RequestStats = Schemas['RequestStats'];
// Which client and server measured each arm (`stacks` of the results).
export type ArmStacks = Schemas['ArmStacks'];
export type ClientStack = Schemas['ClientStack'];
export type ServerStack = Schemas['ServerStack'];
export type RunArtifact = Schemas['RunArtifactOutput'];
export type Device = Schemas['DeviceWithRunsOutput'];
export type DevicePage = Schemas['PaginatedDeviceWithRunsOutputList'];
export type DeviceDetail = Schemas['DeviceDetailOutput'];
export type DeviceState = Schemas['DeviceStateEnum'];
export type DeviceRecentRun = Schemas['DeviceRecentRun'];
export type DeviceStateChange = Schemas['DeviceStateChangeOutput'];
export type Pool = Schemas['PoolOutput'];
export type FleetRunner = Schemas['RunnerOutput'];
export type FleetRunnerPage = Schemas['PaginatedRunnerOutputList'];
export type EnrollmentToken = Schemas['EnrollmentTokenOutput'];
export type EnrollmentTokenCreated = Schemas['EnrollmentTokenCreated'];
export type EnrollmentTokenRequest = Schemas['EnrollmentTokenInputRequest'];
export type Role = Schemas['RoleEnum'];
// /api/v1/secrets: names only; a value is sent, never received.
export type Secret = Schemas['SecretOutput'];
export type HarPreview = Schemas['HarPreview'];
export type RequestsWorkload = Schemas['RequestsWorkload'];
export type SecretCreateRequest = Schemas['SecretCreateInputRequest'];
export type SecretValueRequest = Schemas['SecretValueInputRequest'];
export type Analysis = Schemas['Analysis'];
export type GateMetric = Schemas['GateMetric'];
export type DescriptiveRow = Schemas['DescriptiveRow'];
export type SeriesRow = Schemas['SeriesRow'];
export type FirstVsRestRow = Schemas['FirstVsRestRow'];
export type ConnectionSide = Schemas['ConnectionSide'];
export type DelaySweepRow = Schemas['DelaySweepRow'];
export type PayloadSweepRow = Schemas['PayloadSweepRow'];
export type PhaseRow = Schemas['PhaseRow'];
export type ArmComparison = Schemas['ArmComparison'];
export type Metric = Schemas['Metric'];
export type VerdictOutcome = Schemas['VerdictOutcome'];

// GET /api/v1/comparisons/{id}/verdict: the CI gate, with the server's overall outcome.
export type ComparisonVerdict = Schemas['ComparisonVerdict'];
export type ArmVerdict = Schemas['ArmVerdict'];
export type VerdictBeside = Schemas['VerdictBeside'];
// Run until decided: the verdict at each look (blocks per device, α spent, outcome, estimate).
export type VerdictLook = Schemas['VerdictLook'];
export type OverallOutcome = Schemas['OverallOutcome'];

// Settings: /api/v1/tokens, /api/v1/webhooks (+ deliveries), /api/v1/network-profiles/bounds.
export type ApiToken = Schemas['ApiTokenOutput'];
export type ApiTokenCreated = Schemas['ApiTokenCreated'];
export type ApiTokenRequest = Schemas['ApiTokenInputRequest'];
export type ApiTokenScope = Schemas['ScopesEnum'];
export type Webhook = Schemas['WebhookOutput'];
export type WebhookCreated = Schemas['WebhookCreated'];
export type WebhookRequest = Schemas['WebhookInputRequest'];
export type WebhookUpdateRequest = Schemas['PatchedWebhookUpdateInputRequest'];
export type WebhookEvent = Schemas['EventsEnum'];
export type WebhookPage = Schemas['PaginatedWebhookOutputList'];
export type WebhookDelivery = Schemas['WebhookDeliveryOutput'];
export type WebhookDeliveryPage = Schemas['PaginatedWebhookDeliveryOutputList'];
export type NetworkProfileRequest = Schemas['NetworkProfileInputRequest'];
export type NetworkProfileBounds = Schemas['NetworkProfileBounds'];
export type FieldBounds = Schemas['FieldBounds'];
// Settings → Usage and Audit log: /api/v1/usage (owners), /api/v1/audit-events (owners and admins).
export type Usage = Schemas['UsageOutput'];
export type UsageMonth = Schemas['UsageMonth'];
export type AuditEvent = Schemas['AuditEventOutput'];
export type AuditEventPage = Schemas['PaginatedAuditEventOutputList'];
export type AuditAction = Schemas['AuditActionEnum'];
export const AUDIT_ACTIONS: readonly AuditAction[] = auditActionEnumValues;
export const API_TOKEN_SCOPES: readonly ApiTokenScope[] = scopesEnumValues;
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = eventsEnumValues;

export const PROTOCOLS: readonly Protocol[] = protocolValues;
export const CONNECTION_POLICIES: readonly ConnectionPolicy[] = connectionPolicyValues;
export const PLATFORMS: readonly Platform[] = platformValues;

/** A preset the spec schema knows by name (GET /api/v1/presets lists them with their specs). */
export function isPresetName(name: string): name is PresetName {
  return (presetNameValues as readonly string[]).includes(name);
}
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

// Accounts: sign-up, organizations, members, invitations (apps.accounts).
export type MyOrganization = Schemas['MembershipRef'];
export type SignupRequest = Schemas['SignupInputRequest'];
export type Member = Schemas['MemberOutput'];
export type Invitation = Schemas['InvitationOutput'];
export type InvitationRequest = Schemas['InvitationInputRequest'];
export type InvitationPreview = Schemas['InvitationPreviewOutput'];
export type InvitationAcceptRequest = Schemas['InvitationAcceptInputRequest'];
export const ROLES: readonly Role[] = roleEnumValues;
