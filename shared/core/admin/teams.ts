// The platform operators' view of teams (every account and team): the list with balances and sending figures,
// the ranking by volume, one team with its users, what the MTA holds of a team now, and the platform's
// suspension and reactivation, each recorded in the audit log with the team before and after, and a reason.
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { utcDay } from '../../time.js';
import type { Store } from '../../store/index.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { DestinationQueue, RecipientError, SendingCounts, TeamFilter } from '../../store/admin-teams.js';
import type { Team } from '../../domain/team.js';
import type { SuspendedBy, TeamStatus } from '../../domain/team-state.js';
import type { JsonValue } from '../../domain/audit-log.js';
import { isAccountUser, type AccountUser, type Operator } from '../../domain/user.js';
import { done, notFound, refuse, type Managed } from '../management-refusals.js';
import { rate } from '../team-summary.js';
import { asAuditActor, auditEntry, auditedBy, type AuditActor } from '../audit-log.js';

export type { TeamFilter, TeamKind, DestinationQueue, RecipientError } from '../../store/admin-teams.js';

export interface TeamAdministrationDeps {
  store: Store;
  config: Config;
}

/** A team's messages over the last `windowDays` UTC days (today included), by how they ended, and its rates. */
export interface SendingFigures extends SendingCounts {
  windowDays: number;
  /** Messages that ended sent, bounced or complained. */
  volume: number;
  bounceRate: number;
  complaintRate: number;
}

export interface AdminTeamSummary {
  team: Team;
  /** The balance it spends: its account's pooled one. */
  balance: number;
  sending: SendingFigures;
}

export interface AdminTeamDetail extends AdminTeamSummary {
  /** The team's own users (an account's, not its teams'). */
  users: AccountUser[];
  domainsCount: number;
  /** An account's live child teams; 0 for a team. */
  teamsCount: number;
}

export interface MtaStatus {
  team: Team;
  /** Recipients in flight (queued, sending or deferred). */
  queueDepth: number;
  /** Epoch ms: when the oldest recipient in flight was queued; null when none is. */
  oldestQueuedAt: number | null;
  /** The destination domains with the most recipients in flight, most first. */
  destinations: DestinationQueue[];
  lastErrors: RecipientError[];
  sending: SendingFigures;
}

/** How many destinations and errors the MTA status shows: enough to see where a queue is stuck. */
const DESTINATIONS_SHOWN = 50;
const ERRORS_SHOWN = 10;

/** An operator's reason: one line of 1 to 500 characters, kept in the audit log. */
export function reasonProblem(reason: string): Managed<never> | undefined {
  if (reason.trim().length < 1 || reason.length > 500) return refuse({ kind: 'invalid_field', field: 'reason', message: 'reason must have 1 to 500 characters' });
  if (/[\p{Cc}\p{Cf}]/u.test(reason)) return refuse({ kind: 'invalid_field', field: 'reason', message: 'reason must be one line of text, without control characters' });
  return undefined;
}

/** What the audit log keeps of a team around a status change. */
const statusSnapshot = (t: Team): JsonValue => ({
  status: t.status,
  suspended_by: t.suspendedBy,
  suspension_reason: t.suspension?.reason ?? null,
  suspended_at: t.suspension?.at ?? null,
});

const NO_SENDING: SendingCounts = { sent: 0, bounced: 0, complained: 0 };

/** A window's counts with their volume and rates. */
export function figures(counts: SendingCounts, windowDays: number): SendingFigures {
  const volume = counts.sent + counts.bounced + counts.complained;
  return { ...counts, windowDays, volume, bounceRate: rate(counts.bounced, volume), complaintRate: rate(counts.complained, volume) };
}

export class TeamAdministration {
  constructor(private readonly d: TeamAdministrationDeps) {}

  /** The default window of the sending figures (the statistics' default). */
  get windowDays(): number {
    return this.d.config.statistics.defaultDays;
  }

  async list(filter: TeamFilter, page: PageRequest): Promise<PageOf<AdminTeamSummary>> {
    const found = await this.d.store.adminTeams.list(filter, page);
    return { rows: await this.summaries(found.rows), total: found.total };
  }

  /** Every team with its sending figures over `days`, the largest volume first. */
  async sendingStats(days: number, page: PageRequest): Promise<Managed<PageOf<{ team: Team; sending: SendingFigures }>>> {
    const max = this.d.config.statistics.maxDays;
    if (!Number.isInteger(days) || days < 1 || days > max) return refuse({ kind: 'invalid_field', field: 'days', message: `days must be an integer from 1 to ${max}` });
    const ranked = await this.d.store.adminTeams.sendingRanking(this.fromDay(days), page);
    const teams = await Promise.all(ranked.rows.map((r) => this.d.store.teams.get(r.teamId)));
    // A team deleted between the two reads is left out of the page.
    const rows = ranked.rows.flatMap((r, i) => {
      const team = teams[i];
      return team ? [{ team, sending: figures(r, days) }] : [];
    });
    return done({ rows, total: ranked.total });
  }

  /** The names of these teams (a list's rows name them, not number them); a team since deleted is missing. */
  async names(ids: Iterable<number>): Promise<ReadonlyMap<number, string>> {
    const unique = [...new Set(ids)];
    const teams = await Promise.all(unique.map((id) => this.d.store.teams.get(id)));
    return new Map(teams.flatMap((t) => (t ? [[t.id, t.name] as const] : [])));
  }

  async get(id: number): Promise<Managed<AdminTeamDetail>> {
    const team = await this.d.store.teams.get(id);
    if (!team) return notFound('team', 'Tenant not found');
    const [summary] = await this.summaries([team]);
    return done(await this.detailOf(summary!));
  }

  async mtaStatus(id: number): Promise<Managed<MtaStatus>> {
    const team = await this.d.store.teams.get(id);
    if (!team) return notFound('team', 'Tenant not found');
    const counts = await this.d.store.adminTeams.sendingCounts([team.id], this.fromDay(this.windowDays));
    return done(await this.mtaStatusOf(team, figures(counts.get(team.id) ?? NO_SENDING, this.windowDays)));
  }

  /** A team and what the MTA holds of it, as its page shows them together: the team and its figures read once. */
  async getWithMtaStatus(id: number): Promise<Managed<{ detail: AdminTeamDetail; mta: MtaStatus }>> {
    const team = await this.d.store.teams.get(id);
    if (!team) return notFound('team', 'Tenant not found');
    const [summary] = await this.summaries([team]);
    const [detail, mta] = await Promise.all([this.detailOf(summary!), this.mtaStatusOf(team, summary!.sending)]);
    return done({ detail, mta });
  }

  /**
   * Suspends a team as the platform (its owner cannot lift it); recorded with the team before and after. The
   * host's CLI may suspend it as its owner would instead (`by: 'account'`, which the owner may lift), audited alike.
   */
  suspend(actor: Operator | AuditActor, id: number, reason: string, log: Logger, by: SuspendedBy = 'platform'): Promise<Managed<Team>> {
    return this.move(asAuditActor(actor), id, { status: 'suspended', by }, reason, log);
  }

  /** Lifts any suspension of a team, the platform's or its owner's; recorded with the team before and after. */
  reactivate(actor: Operator | AuditActor, id: number, reason: string, log: Logger): Promise<Managed<Team>> {
    return this.move(asAuditActor(actor), id, { status: 'active', by: 'platform' }, reason, log);
  }

  /**
   * The status change and its audit entry commit together. An action that changes nothing (suspending a team
   * the platform already suspended) is recorded all the same: the operator did it, and its before and after say so.
   */
  private async move(actor: AuditActor, id: number, wanted: { status: TeamStatus; by: SuspendedBy }, reason: string, log: Logger): Promise<Managed<Team>> {
    const bad = reasonProblem(reason);
    if (bad) return bad;
    const suspending = wanted.status === 'suspended';
    const action = suspending ? 'tenant.suspend' : 'tenant.reactivate';
    const at = new Date().toISOString();
    const audit = (before: Team, after: Team) =>
      auditEntry(actor, { action, target: { kind: 'tenant', id: String(id) }, before: statusSnapshot(before), after: statusSnapshot(after), reason }, at);
    const change = await this.d.store.adminTeams.changeStatus(id, wanted.status, suspending ? { reason } : undefined, audit, wanted.by);
    // The platform's own transitions, and an owner's suspension, are never refused; a refusal here is a missing team.
    if (!change.ok) return notFound('team', 'Tenant not found');
    log.info({ team: id, operator: auditedBy(actor).operatorEmail, action, status: change.team.status }, 'tenant status changed by an operator');
    return done(change.team);
  }

  /** Balances and sending figures of a page of teams: one read of the counters for the whole page. */
  private async summaries(teams: readonly Team[]): Promise<AdminTeamSummary[]> {
    const days = this.windowDays;
    const [counts, balances] = await Promise.all([
      this.d.store.adminTeams.sendingCounts(
        teams.map((t) => t.id),
        this.fromDay(days),
      ),
      Promise.all(teams.map((t) => this.d.store.teams.payerBalance(t))),
    ]);
    return teams.map((team, i) => ({ team, balance: balances[i]!, sending: figures(counts.get(team.id) ?? NO_SENDING, days) }));
  }

  private async detailOf(summary: AdminTeamSummary): Promise<AdminTeamDetail> {
    const team = summary.team;
    const [users, domains, teams] = await Promise.all([
      this.d.store.users.listByTeam(team.id),
      this.d.store.domains.list(team.id, { page: 1, perPage: 1 }),
      team.parentId === null ? this.d.store.teams.children(team.id) : Promise.resolve([]),
    ]);
    return { ...summary, users: users.filter(isAccountUser), domainsCount: domains.total, teamsCount: teams.length };
  }

  private async mtaStatusOf(team: Team, sending: SendingFigures): Promise<MtaStatus> {
    const [queueDepth, destinations, lastErrors] = await Promise.all([
      this.d.store.statistics.queueDepth(team.id),
      this.d.store.adminTeams.queueByDestination(team.id, DESTINATIONS_SHOWN),
      this.d.store.adminTeams.lastErrors(team.id, ERRORS_SHOWN),
    ]);
    const oldest = destinations.length ? Math.min(...destinations.map((q) => q.oldestQueuedAt)) : null;
    return { team, queueDepth, oldestQueuedAt: oldest, destinations, lastErrors, sending };
  }

  /** The first UTC day of a window of `days` days ending today. */
  private fromDay(days: number): string {
    return utcDay(new Date(Date.now() - (days - 1) * 86_400_000));
  }
}
