// What the platform's operators read and change across teams (every account and team): the list with its
// filters, sending counts over a window of days, the MTA's queue of one team, and the platform's
// suspension recorded in the audit log in the same transaction. Every read is indexed and paged or bounded.
import type { Team, SuspensionCause } from '../domain/team.js';
import type { Actor, TeamStatus } from '../domain/team-state.js';
import type { RecipientState } from '../domain/queue-state.js';
import type { NewAuditEntry } from './audit-log.js';
import type { PageOf, PageRequest } from './paging.js';
import type { StatusChange } from './teams.js';

export type TeamKind = 'account' | 'team';

/** Every field given narrows the list. */
export interface TeamFilter {
  status?: TeamStatus;
  /** The account's child teams. */
  parentId?: number;
  kind?: TeamKind;
  /** Part of the name, without regard to ASCII case. */
  search?: string;
}

/** A team's messages over a window, by the status they ended in (pending, failed and suppressed are left out). */
export interface SendingCounts {
  sent: number;
  bounced: number;
  complained: number;
}

export interface TeamSendingCounts extends SendingCounts {
  teamId: number;
}

/** A team's recipients still in flight to one destination domain. */
export interface DestinationQueue {
  domain: string;
  queued: number;
  sending: number;
  deferred: number;
  /** Epoch ms: when the oldest of them was queued. */
  oldestQueuedAt: number;
}

/** The last reply a recipient got (or why it failed without one). */
export interface RecipientError {
  messageId: string;
  email: string;
  domain: string;
  state: Extract<RecipientState, 'deferred' | 'bounced' | 'failed'>;
  reply: string;
  attempts: number;
  /** ISO 8601 UTC: when the recipient last changed. */
  at: string;
}

export interface AdminTeamRepository {
  /** Live accounts and teams that match, by id, with their total. */
  list(filter: TeamFilter, page: PageRequest): Promise<PageOf<Team>>;
  /** The sending counts of some teams from `fromDay` (YYYY-MM-DD, UTC) on; a team that sent nothing is absent. */
  sendingCounts(teamIds: readonly number[], fromDay: string): Promise<Map<number, SendingCounts>>;
  /** Every live team's sending counts from `fromDay` on, the largest volume first (then by id), with the teams' total. */
  sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<TeamSendingCounts>>;
  /** A team's recipients in flight by destination domain, the most first, at most `limit` domains. */
  queueByDestination(teamId: number, limit: number): Promise<DestinationQueue[]>;
  /** The latest replies of a team's deferred, bounced and failed recipients, newest first. */
  lastErrors(teamId: number, limit: number): Promise<RecipientError[]>;
  /**
   * Moves a team's status as `actor` (the platform unless said; the host's CLI may suspend as the owner would)
   * and appends the audit entry `audit` makes of the team before and after, in one transaction: both or neither.
   */
  changeStatus(
    id: number,
    wanted: TeamStatus,
    cause: SuspensionCause | undefined,
    audit: (before: Team, after: Team) => NewAuditEntry,
    actor?: Actor,
  ): Promise<StatusChange>;
}
