// The operators' reads across teams in SQLite. Sending counts come from the day counters of recipients (recipient_counts, on its
// primary key: team, then day), never from the log; a team's queue from the partial indexes of its recipients in
// flight (migration 27).
import type { Sql, SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { inList } from './point-reads.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { decodeTeam, TeamStore } from './teams.js';
import { AuditLogStore } from './audit-log.js';
import type { SuspensionCause, Team } from '../../domain/team.js';
import type { Actor, TeamStatus } from '../../domain/team-state.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { StatusChange } from '../teams.js';
import type { AdminTeamRepository, DestinationQueue, RecipientError, SendingCounts, TeamFilter, TeamSendingCounts } from '../admin-teams.js';
import { decodeCounts, decodeDestination, decodeError, decodeTeamId } from '../admin-team-row.js';
import { likeContains } from '../like.js';

/** The recipients' counters by the status they ended in, summed per team. */
const COUNTS = `SUM(CASE WHEN status = 'sent' THEN n ELSE 0 END) AS sent, SUM(CASE WHEN status = 'bounced' THEN n ELSE 0 END) AS bounced,
  SUM(CASE WHEN status = 'complained' THEN n ELSE 0 END) AS complained`;
const ENDED = "status IN ('sent', 'bounced', 'complained')";
const NONE: SendingCounts = { sent: 0, bounced: 0, complained: 0 };

/** The WHERE clause of a team filter and its params; live teams only. */
function whereOf(f: TeamFilter): [string, SqlValue[]] {
  const terms = ['deleted_at IS NULL'];
  const params: SqlValue[] = [];
  const add = (term: string, ...values: SqlValue[]) => {
    terms.push(term);
    params.push(...values);
  };
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.parentId !== undefined) add('parent_id = ?', f.parentId);
  if (f.kind !== undefined) add(f.kind === 'account' ? 'parent_id IS NULL' : 'parent_id IS NOT NULL');
  // LIKE folds ASCII case in SQLite (PostgreSQL: ILIKE).
  if (f.search !== undefined) add("name LIKE ? ESCAPE '\\'", likeContains(f.search));
  return [terms.join(' AND '), params];
}

/** How many of a team's latest failed and bounced messages are read for their errors (the newest are enough). */
const FINISHED_LOOKBACK = 50;

export class AdminTeamStore implements AdminTeamRepository {
  constructor(private readonly sql: Sql) {}

  async list(filter: TeamFilter, page: PageRequest): Promise<PageOf<Team>> {
    const [where, params] = whereOf(filter);
    const rows = await this.sql.all(`SELECT * FROM teams WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`, [...params, ...limitOffset(page)]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM teams WHERE ${where}`, params);
    return { rows: rows.map(decodeTeam), total: countOf(total!) };
  }

  async sendingCounts(teamIds: readonly number[], fromDay: string): Promise<Map<number, SendingCounts>> {
    if (!teamIds.length) return new Map();
    const list = inList(teamIds);
    const rows = await this.sql.all(`SELECT team_id, ${COUNTS} FROM recipient_counts WHERE team_id IN ${list.sql} AND day >= ? AND ${ENDED} GROUP BY team_id`, [
      ...list.params,
      fromDay,
    ]);
    return new Map(rows.map(decodeCounts).map((c) => [c.teamId, c]));
  }

  /**
   * Ranked by the window's total alone, each team's read on the counters' primary key (team_id, day), so the
   * cost follows the window and the number of teams, not the history kept; then the page's teams counted by
   * status. (One SUM per team: per-status sums over every counter row of the window cost twice as much.)
   */
  async sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<TeamSendingCounts>> {
    const ranked = await this.sql.all(
      `SELECT t.id AS team_id FROM teams t WHERE t.deleted_at IS NULL
       ORDER BY COALESCE((SELECT SUM(n) FROM recipient_counts c WHERE c.team_id = t.id AND c.day >= ? AND ${ENDED}), 0) DESC, t.id LIMIT ? OFFSET ?`,
      [fromDay, ...limitOffset(page)],
    );
    const ids = ranked.map(decodeTeamId);
    const counts = await this.sendingCounts(ids, fromDay);
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM teams WHERE deleted_at IS NULL');
    return { rows: ids.map((teamId) => ({ teamId, ...(counts.get(teamId) ?? NONE) })), total: countOf(total!) };
  }

  async queueByDestination(teamId: number, limit: number): Promise<DestinationQueue[]> {
    // One walk of the team's part of recipients_in_flight_by_team (migration 27), already in domain order.
    const rows = await this.sql.all(
      `SELECT domain, SUM(state = 'queued') AS queued, SUM(state = 'sending') AS sending, SUM(state = 'deferred') AS deferred, MIN(queued_at) AS oldest
       FROM recipients WHERE team_id = ? AND state IN ('queued', 'sending', 'deferred')
       GROUP BY domain ORDER BY COUNT(*) DESC, domain LIMIT ?`,
      [teamId, limit],
    );
    return rows.map(decodeDestination);
  }

  async lastErrors(teamId: number, limit: number): Promise<RecipientError[]> {
    // The newest deferrals come from recipients_deferred_by_team (migration 27); failed and bounced recipients are
    // looked for among the team's latest messages of that status only, so a long history is never read.
    const finished = (status: 'failed' | 'bounced') =>
      `SELECT r.message_id, r.email, r.domain, r.state, COALESCE(r.last_reply, r.reason) AS reply, r.attempts, r.updated_at AS at
       FROM (SELECT id FROM messages WHERE team_id = ? AND status = '${status}' ORDER BY created_at DESC LIMIT ${FINISHED_LOOKBACK}) f
       JOIN recipients r ON r.message_id = f.id WHERE r.state = '${status}'`;
    const rows = await this.sql.all(
      `SELECT message_id, email, domain, state, reply, attempts, at FROM (
         SELECT * FROM (SELECT message_id, email, domain, state, COALESCE(last_reply, reason) AS reply, attempts, updated_at AS at
           FROM recipients WHERE team_id = ? AND state = 'deferred' AND COALESCE(last_reply, reason) <> '' ORDER BY updated_at DESC LIMIT ?)
         UNION ALL ${finished('failed')}
         UNION ALL ${finished('bounced')}
       ) WHERE reply <> '' ORDER BY at DESC LIMIT ?`,
      [teamId, limit, teamId, teamId, limit],
    );
    return rows.map(decodeError);
  }

  async changeStatus(
    id: number,
    wanted: TeamStatus,
    cause: SuspensionCause | undefined,
    audit: (before: Team, after: Team) => NewAuditEntry,
    actor: Actor = 'platform',
  ): Promise<StatusChange> {
    return this.sql.tx(async (q): Promise<StatusChange> => {
      const moved = await TeamStore.moveStatus(q, id, wanted, actor, cause);
      if (!moved.ok) return moved;
      await AuditLogStore.insert(q, audit(moved.before, moved.team));
      return { ok: true, team: moved.team };
    });
  }
}
