// The operators' reads across teams in PostgreSQL. Sending counts come from the day counters of recipients
// (recipient_counts, on its primary key: team, then day), never from the log; a team's queue from the partial
// indexes of its recipients in flight. A platform suspension is the team's status move (its row read FOR
// UPDATE) and its audit entry in one transaction.
import { ParamList, type PgSql } from './sql.js';
import { countOf } from './decode.js';
import { decodeTeam } from '../team-row.js';
import { PgTeamStore } from './teams.js';
import { PgAuditLogStore } from './audit-log.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
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

/** The WHERE clause of a team filter, its values added to `params`; live teams only. */
function whereOf(f: TeamFilter, params: ParamList): string {
  const terms = ['deleted_at IS NULL'];
  if (f.status !== undefined) terms.push(`status = ${params.add(f.status)}`);
  if (f.parentId !== undefined) terms.push(`parent_id = ${params.add(f.parentId)}`);
  if (f.kind !== undefined) terms.push(f.kind === 'account' ? 'parent_id IS NULL' : 'parent_id IS NOT NULL');
  // SQLite's LIKE folds ASCII case; PostgreSQL's LIKE does not, ILIKE does.
  if (f.search !== undefined) terms.push(`name ILIKE ${params.add(likeContains(f.search))} ESCAPE '\\'`);
  return terms.join(' AND ');
}

/** How many of a team's latest failed and bounced messages are read for their errors (the newest are enough). */
const FINISHED_LOOKBACK = 50;

/** A team's ($1) recipients of a finished status among its latest messages of that status only, so a long history is never read. */
const finished = (status: 'failed' | 'bounced') =>
  `SELECT r.message_id, r.email, r.domain, r.state, COALESCE(r.last_reply, r.reason) AS reply, r.attempts, r.updated_at AS at
   FROM (SELECT id FROM messages WHERE team_id = $1 AND status = '${status}' ORDER BY created_at DESC LIMIT ${FINISHED_LOOKBACK}) f
   JOIN recipients r ON r.message_id = f.id WHERE r.state = '${status}'`;

/** The newest deferrals come from recipients_deferred_by_team; then the finished ones; the newest $2 of all. */
const LAST_ERRORS = `SELECT message_id, email, domain, state, reply, attempts, at FROM (
    (SELECT message_id, email, domain, state, COALESCE(last_reply, reason) AS reply, attempts, updated_at AS at
     FROM recipients WHERE team_id = $1 AND state = 'deferred' AND COALESCE(last_reply, reason) <> '' ORDER BY updated_at DESC LIMIT $2)
    UNION ALL (${finished('failed')})
    UNION ALL (${finished('bounced')})
  ) e WHERE reply <> '' ORDER BY at DESC LIMIT $2`;

/** One walk of the team's part of recipients_in_flight_by_team, grouped by destination. */
const BY_DESTINATION = `SELECT domain, COUNT(*) FILTER (WHERE state = 'queued') AS queued, COUNT(*) FILTER (WHERE state = 'sending') AS sending,
    COUNT(*) FILTER (WHERE state = 'deferred') AS deferred, MIN(queued_at) AS oldest
  FROM recipients WHERE team_id = $1 AND state IN ('queued', 'sending', 'deferred')
  GROUP BY domain ORDER BY COUNT(*) DESC, domain LIMIT $2`;

export class PgAdminTeamStore implements AdminTeamRepository {
  constructor(private readonly sql: PgSql) {}

  async list(filter: TeamFilter, page: PageRequest): Promise<PageOf<Team>> {
    const params = new ParamList();
    const where = whereOf(filter, params);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM teams WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(`SELECT * FROM teams WHERE ${where} ORDER BY id LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`, params.values);
    return { rows: rows.map(decodeTeam), total: countOf(total!) };
  }

  async sendingCounts(teamIds: readonly number[], fromDay: string): Promise<Map<number, SendingCounts>> {
    if (!teamIds.length) return new Map();
    const rows = await this.sql.all(`SELECT team_id, ${COUNTS} FROM recipient_counts WHERE team_id = ANY($1::bigint[]) AND day >= $2 AND ${ENDED} GROUP BY team_id`, [
      [...teamIds],
      fromDay,
    ]);
    return new Map(rows.map(decodeCounts).map((c) => [c.teamId, c]));
  }

  /**
   * Ranked by the window's total alone, each team's read on the counters' primary key (team_id, day), so the
   * cost follows the window and the number of teams, not the history kept; then the page's teams counted by status.
   */
  async sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<TeamSendingCounts>> {
    const [limit, offset] = limitOffset(page);
    const ranked = await this.sql.all(
      `SELECT t.id AS team_id FROM teams t WHERE t.deleted_at IS NULL
       ORDER BY COALESCE((SELECT SUM(n) FROM recipient_counts c WHERE c.team_id = t.id AND c.day >= $1 AND ${ENDED}), 0) DESC, t.id LIMIT $2 OFFSET $3`,
      [fromDay, limit, offset],
    );
    const ids = ranked.map(decodeTeamId);
    const counts = await this.sendingCounts(ids, fromDay);
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM teams WHERE deleted_at IS NULL');
    return { rows: ids.map((teamId) => ({ teamId, ...(counts.get(teamId) ?? NONE) })), total: countOf(total!) };
  }

  async queueByDestination(teamId: number, limit: number): Promise<DestinationQueue[]> {
    return (await this.sql.all(BY_DESTINATION, [teamId, limit])).map(decodeDestination);
  }

  async lastErrors(teamId: number, limit: number): Promise<RecipientError[]> {
    return (await this.sql.all(LAST_ERRORS, [teamId, limit])).map(decodeError);
  }

  /** The team's row is locked by moveStatus until the audit entry is written: both commit, or neither. */
  changeStatus(
    id: number,
    wanted: TeamStatus,
    cause: SuspensionCause | undefined,
    audit: (before: Team, after: Team) => NewAuditEntry,
    actor: Actor = 'platform',
  ): Promise<StatusChange> {
    return this.sql.tx(async (q): Promise<StatusChange> => {
      const moved = await PgTeamStore.moveStatus(q, id, wanted, actor, cause);
      if (!moved.ok) return moved;
      await PgAuditLogStore.insert(q, audit(moved.before, moved.team));
      return { ok: true, team: moved.team };
    });
  }
}
