import type { components } from '@/api/schema';

type Schemas = components['schemas'];

export type ShareLink = Schemas['ShareLinkOutput'];
export type ShareLinkCreated = Schemas['ShareLinkCreated'];
export type ShareLinkInput = Schemas['ShareLinkInputRequest'];
export type ShareLinkPage = Schemas['PaginatedShareLinkOutputList'];
export type PublicReport = Schemas['PublicReport'];
export type ReportMethod = Schemas['ReportMethod'];
export type ReportRun = Schemas['ReportRun'];
