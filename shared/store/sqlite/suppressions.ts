// A team's suppression list in SQLite: addresses that are not sent to.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { groupBy } from '../../group-by.js';
import { inList, pointReads } from './point-reads.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf } from '../paging.js';
import { nowIso } from '../../time.js';
import { SUPPRESSION_RANK, SUPPRESSION_STATUSES, type Suppression } from '../../domain/suppression.js';
import type { NewSuppression, PlatformSuppressionQuery, SuppressionFilter, SuppressionQuery, SuppressionRepository, TeamSuppression } from '../suppressions.js';
import { decodeEmail, decodeKeyset, decodeSuppression, decodeTeamSuppression } from '../suppression-row.js';
import { likeContains } from '../like.js';

/** One address of one team's list, as the send path asks for it. */
interface TeamAddress {
  teamId: number;
  email: string;
}

/** Addresses per statement, within the point reads' longest list. */
const MAX_ADDRESSES = 100;

/** SUPPRESSION_RANK as SQL, over a status column. */
const rank = (column: string): string => `CASE ${column} ${SUPPRESSION_STATUSES.map((s) => `WHEN '${s}' THEN ${SUPPRESSION_RANK[s]}`).join(' ')} ELSE 0 END`;

const COLUMNS = 'email, status, reason, message_id, created_at';

/** The WHERE clause of a team's entries (every team's: undefined) matching a filter, and its parameters. */
function filtered(teamId: number | undefined, filter: SuppressionFilter): { where: string; params: SqlValue[] } {
  const clauses = teamId === undefined ? ['1 = 1'] : ['team_id = ?'];
  const params: SqlValue[] = teamId === undefined ? [] : [teamId];
  if (filter.search) {
    clauses.push(`email LIKE ? ESCAPE '\\'`);
    params.push(likeContains(filter.search.toLowerCase()));
  }
  if (filter.status) {
    clauses.push('status = ?');
    params.push(filter.status);
  }
  return { where: clauses.join(' AND '), params };
}

export class SuppressionStore implements SuppressionRepository {
  constructor(private readonly sql: Sql) {}

  async add(teamId: number, s: NewSuppression): Promise<void> {
    await SuppressionStore.upsert(this.sql, teamId, s);
  }

  /** The same, inside a caller's transaction (bounce and complaint processing). */
  static async upsert(q: Queryable, teamId: number, s: NewSuppression): Promise<void> {
    await q.run(
      `INSERT INTO suppressions (team_id, email, status, reason, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, email) DO UPDATE SET status = excluded.status, reason = excluded.reason,
         message_id = excluded.message_id, created_at = excluded.created_at
       WHERE ${rank('excluded.status')} >= ${rank('suppressions.status')}`,
      [teamId, s.email.toLowerCase(), s.status, s.reason, s.messageId, nowIso()],
    );
  }

  async get(teamId: number, email: string): Promise<Suppression | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM suppressions WHERE team_id = ? AND email = ?`, [teamId, email.toLowerCase()]);
    return row && decodeSuppression(row);
  }

  async list(teamId: number, query: SuppressionQuery): Promise<PageOf<Suppression>> {
    const { where, params } = filtered(teamId, query);
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM suppressions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
      ...params,
      ...limitOffset(query),
    ]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, params);
    return { rows: rows.map(decodeSuppression), total: countOf(count!) };
  }

  /**
   * Across teams the order comes from suppressions_by_time (migration 21) and the page stops the walk; a search
   * (LIKE on a part, which no index serves) counts its matches only up to the paging depth, as the log's does.
   */
  async listAcrossTeams(query: PlatformSuppressionQuery): Promise<PageOf<TeamSuppression>> {
    const { where, params } = filtered(query.teamId, query);
    const rows = await this.sql.all(`SELECT team_id, ${COLUMNS} FROM suppressions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
      ...params,
      ...limitOffset(query),
    ]);
    const count = query.search
      ? await this.sql.get(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM suppressions WHERE ${where} LIMIT ?)`, [...params, query.searchCountLimit])
      : await this.sql.get(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, params);
    return { rows: rows.map(decodeTeamSuppression), total: countOf(count!) };
  }

  async *walk(teamId: number, filter: SuppressionFilter, batch: number): AsyncIterable<Suppression> {
    const { where, params } = filtered(teamId, filter);
    let after: { createdAt: string; id: number } | undefined;
    for (;;) {
      // (created_at, id) below the last row read: the index on (team_id, created_at) (id is its rowid) walks on.
      const keyset = after ? ' AND created_at <= ? AND (created_at < ? OR id < ?)' : '';
      const rows = await this.sql.all(`SELECT id, ${COLUMNS} FROM suppressions WHERE ${where}${keyset} ORDER BY created_at DESC, id DESC LIMIT ?`, [
        ...params,
        ...(after ? [after.createdAt, after.createdAt, after.id] : []),
        batch,
      ]);
      for (const row of rows) yield decodeSuppression(row);
      if (rows.length < batch) return;
      const last = decodeKeyset(rows[rows.length - 1]!);
      after = { createdAt: last.created_at, id: last.id };
    }
  }

  async remove(teamId: number, email: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM suppressions WHERE team_id = ? AND email = ?', [teamId, email.toLowerCase()])).changes === 1;
  }

  async isSuppressed(teamId: number, email: string): Promise<boolean> {
    return !!(await this.sql.get('SELECT 1 FROM suppressions WHERE team_id = ? AND email = ?', [teamId, email.toLowerCase()]));
  }

  async suppressedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>> {
    const found = await Promise.all(emails.map((email) => this.entryOf({ teamId, email })));
    return new Set(emails.filter((_, i) => found[i]));
  }

  /**
   * Which of `emails` (lower case) are on a team's list, MAX_ADDRESSES to a statement, on `q`: the send path's
   * point reads and a requeue's transaction ask it the same way.
   */
  static async listedAmong(q: Queryable, teamId: number, emails: readonly string[]): Promise<Set<string>> {
    const listed = new Set<string>();
    for (let i = 0; i < emails.length; i += MAX_ADDRESSES) {
      const list = inList(emails.slice(i, i + MAX_ADDRESSES));
      const rows = await q.all(`SELECT email FROM suppressions WHERE team_id = ? AND email IN ${list.sql}`, [teamId, ...list.params]);
      for (const email of rows.map(decodeEmail)) listed.add(email);
    }
    return listed;
  }

  /** Whether each (team, address) is on the list, read together (see point-reads.ts): one statement per team. */
  private readonly entryOf = pointReads(async (keys: readonly TeamAddress[]) => {
    const found = new Map<TeamAddress, true>();
    for (const [teamId, ofTeam] of groupBy(keys, (k) => k.teamId)) {
      const listed = await SuppressionStore.listedAmong(
        this.sql,
        teamId,
        ofTeam.map((k) => k.email),
      );
      for (const key of ofTeam) if (listed.has(key.email)) found.set(key, true);
    }
    return found;
  });
}
