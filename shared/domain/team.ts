// A team as the application sees it: an account (parent null, holds the pooled credits) or one of its child teams.
import type { Actor, SuspendedBy, TeamStatus } from './team-state.js';

/** The figures behind a suspension by policy: which rate passed, the team's figures over the window, the thresholds. */
export interface SuspensionDetail {
  rate: 'bounce' | 'complaint';
  windowDays: number;
  volume: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
  thresholds: { minVolume: number; minBounces: number; minComplaints: number; maxBounceRate: number; maxComplaintRate: number };
}

/** Why a team is suspended, kept with it from the suspension until it is reactivated. */
export interface Suspension {
  by: SuspendedBy;
  reason: string;
  /** ISO 8601 UTC, when the team was suspended. */
  at: string;
  /** Set when a policy suspended the team (platform suspension by reputation). */
  detail: SuspensionDetail | null;
}

/** What a caller says about a suspension it asks for; without it, who suspended is the reason. */
export interface SuspensionCause {
  reason: string;
  detail?: SuspensionDetail;
}

/** The reason recorded when a caller gives none: the platform's suspensions without one are the operator's. */
export const DEFAULT_SUSPENSION_REASON: Readonly<Record<Actor, string>> = { account: 'suspended by the account', platform: 'suspended by the operator' };

/** A team's icon: an https image elsewhere, or one uploaded to Tern (served back by its id). */
export type TeamIcon = { kind: 'url'; url: string } | { kind: 'uploaded'; id: string };

/** An icon uploaded to Tern: its id changes with its content, so it may be cached for good. */
export interface StoredIcon {
  id: string;
  teamId: number;
  /** image/png, image/jpeg or image/webp, as its content says. */
  contentType: string;
  content: Buffer;
  createdAt: string;
}

export interface Team {
  id: number;
  parentId: number | null;
  name: string;
  status: TeamStatus;
  suspendedBy: SuspendedBy | null;
  /** Null while the team is active. */
  suspension: Suspension | null;
  planType: string;
  /** The team's own balance: an account's is the one it pays from; a child team's counts only while it does not share its account's. */
  creditBalance: number;
  /** A child team draws on its account's balance while true (the default); false once credits were moved to it. Accounts: true. */
  creditsShared: boolean;
  limitPerSecond: number;
  backendRegion: string;
  /** An IANA time zone name, as the account chose it ('UTC' until then). */
  timeZone: string;
  /** Null when the team has none. */
  icon: TeamIcon | null;
  createdAt: string;
  updatedAt: string;
}

/** The account a team belongs to: itself when it is an account. */
export const accountIdOf = (team: Team): number => team.parentId ?? team.id;

/** The team whose balance pays for a team's mail: its account, unless it was given credits of its own. */
export const payerIdOf = (team: Pick<Team, 'id' | 'parentId' | 'creditsShared'>): number => (team.parentId !== null && team.creditsShared ? team.parentId : team.id);
