// A team's suppression list in PostgreSQL: addresses that are not sent to. The UNIQUE (team_id, email) key and
// ON CONFLICT … DO UPDATE … WHERE decide a raise in the write, so two reports of one address racing on several
// MTAs can never lower a status. upsertSuppression and suppressionsListedAmong are exported for the unit of work,
// which calls them on its own transaction, as the SQLite engine's unit of work calls SuppressionStore's statics.
import { ParamList, type PgSql, type Queryable as PgQueryable } from './sql.js';
import { groupBy } from '../../group-by.js';
import { inList, pointReads } from '../sqlite/point-reads.js';
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

/**
 * An entry replaces the standing one only if it ranks as high: the WHERE of DO UPDATE is evaluated on the row
 * locked by the conflict, its newest committed version, so a raise and a lower racing end with the higher.
 */
const UPSERT = `INSERT INTO suppressions (team_id, email, status, reason, message_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (team_id, email) DO UPDATE SET status = excluded.status, reason = excluded.reason,
    message_id = excluded.message_id, created_at = excluded.created_at
  WHERE ${rank('excluded.status')} >= ${rank('suppressions.status')}`;

/**
 * Adds or refreshes a team's entry, never lowering its status (SUPPRESSION_RANK), on `q`: the repository's pool
 * or the unit of work's transaction (bounce and complaint processing).
 */
export async function upsertSuppression(q: PgQueryable, teamId: number, s: NewSuppression): Promise<void> {
  await q.run(UPSERT, [teamId, s.email.toLowerCase(), s.status, s.reason, s.messageId, nowIso()]);
}

/**
 * Which of `emails` (lower case) are on a team's list, MAX_ADDRESSES to a statement, on `q`: the send path's
 * point reads and a requeue's transaction ask it the same way. Lists are padded to a few lengths (inList), so
 * each connection prepares few statements.
 */
export async function suppressionsListedAmong(q: PgQueryable, teamId: number, emails: readonly string[]): Promise<Set<string>> {
  const listed = new Set<string>();
  for (let i = 0; i < emails.length; i += MAX_ADDRESSES) {
    const params = new ParamList();
    const team = params.add(teamId);
    const marks = inList(emails.slice(i, i + MAX_ADDRESSES)).params.map((email) => params.add(email));
    const rows = await q.all(`SELECT email FROM suppressions WHERE team_id = ${team} AND email IN (${marks.join(', ')})`, params.values);
    for (const email of rows.map(decodeEmail)) listed.add(email);
  }
  return listed;
}

/** The WHERE clause of a team's entries (every team's: undefined) matching a filter, its values added to `params`. */
function whereOf(teamId: number | undefined, filter: SuppressionFilter, params: ParamList): string {
  const clauses = teamId === undefined ? ['TRUE'] : [`team_id = ${params.add(teamId)}`];
  // Addresses are stored lower-cased and the search is lowered, so LIKE (case-sensitive here) matches as SQLite's.
  if (filter.search) clauses.push(`email LIKE ${params.add(likeContains(filter.search.toLowerCase()))} ESCAPE '\\'`);
  if (filter.status) clauses.push(`status = ${params.add(filter.status)}`);
  return clauses.join(' AND ');
}

/** The page's rows, newest first, and the statement counting the filter's matches (its parameters: the same). */
async function page(sql: PgSql, teamId: number | undefined, query: SuppressionQuery, columns: string) {
  const params = new ParamList();
  const where = whereOf(teamId, query, params);
  const filterValues = [...params.values];
  const [limit, offset] = limitOffset(query);
  const rows = await sql.all(
    `SELECT ${columns} FROM suppressions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
    params.values,
  );
  return { rows, where, filterValues };
}

export class PgSuppressionStore implements SuppressionRepository {
  constructor(private readonly sql: PgSql) {}

  add(teamId: number, s: NewSuppression): Promise<void> {
    return upsertSuppression(this.sql, teamId, s);
  }

  async get(teamId: number, email: string): Promise<Suppression | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM suppressions WHERE team_id = $1 AND email = $2`, [teamId, email.toLowerCase()]);
    return row && decodeSuppression(row);
  }

  async list(teamId: number, query: SuppressionQuery): Promise<PageOf<Suppression>> {
    const { rows, where, filterValues } = await page(this.sql, teamId, query, COLUMNS);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, filterValues);
    return { rows: rows.map(decodeSuppression), total: countOf(count!) };
  }

  /**
   * Across teams the order comes from suppressions_by_time and the page stops the walk; a search (LIKE on a
   * part, which no index serves) counts its matches only up to the paging depth, as the log's does.
   */
  async listAcrossTeams(query: PlatformSuppressionQuery): Promise<PageOf<TeamSuppression>> {
    const { rows, where, filterValues } = await page(this.sql, query.teamId, query, `team_id, ${COLUMNS}`);
    const count = query.search
      ? await this.sql.get(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM suppressions WHERE ${where} LIMIT $${filterValues.length + 1}) AS matches`, [
          ...filterValues,
          query.searchCountLimit,
        ])
      : await this.sql.get(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, filterValues);
    return { rows: rows.map(decodeTeamSuppression), total: countOf(count!) };
  }

  async *walk(teamId: number, filter: SuppressionFilter, batch: number): AsyncIterable<Suppression> {
    let after: { createdAt: string; id: number } | undefined;
    for (;;) {
      const params = new ParamList();
      const where = whereOf(teamId, filter, params);
      // (created_at, id) below the last row read, as a row comparison: the walk goes on in the list's order.
      const keyset = after ? ` AND (created_at, id) < (${params.add(after.createdAt)}, ${params.add(after.id)})` : '';
      const rows = await this.sql.all(
        `SELECT id, ${COLUMNS} FROM suppressions WHERE ${where}${keyset} ORDER BY created_at DESC, id DESC LIMIT ${params.add(batch)}`,
        params.values,
      );
      for (const row of rows) yield decodeSuppression(row);
      if (rows.length < batch) return;
      const last = decodeKeyset(rows[rows.length - 1]!);
      after = { createdAt: last.created_at, id: last.id };
    }
  }

  async remove(teamId: number, email: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM suppressions WHERE team_id = $1 AND email = $2', [teamId, email.toLowerCase()])).changes === 1;
  }

  async isSuppressed(teamId: number, email: string): Promise<boolean> {
    return !!(await this.sql.get('SELECT 1 AS listed FROM suppressions WHERE team_id = $1 AND email = $2', [teamId, email.toLowerCase()]));
  }

  async suppressedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>> {
    const found = await Promise.all(emails.map((email) => this.entryOf({ teamId, email })));
    return new Set(emails.filter((_, i) => found[i]));
  }

  /** Whether each (team, address) is on the list, read together (see sqlite/point-reads.ts): one statement per team. */
  private readonly entryOf = pointReads(async (keys: readonly TeamAddress[]) => {
    const found = new Map<TeamAddress, true>();
    for (const [teamId, ofTeam] of groupBy(keys, (k) => k.teamId)) {
      const listed = await suppressionsListedAmong(
        this.sql,
        teamId,
        ofTeam.map((k) => k.email),
      );
      for (const key of ofTeam) if (listed.has(key.email)) found.set(key, true);
    }
    return found;
  });
}
