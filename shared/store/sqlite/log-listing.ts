// How the message log is listed in SQLite: the page and the count statements of a listing, from its filters
// (indexes on team, domain and date; whole days counted from message_counts; words through FTS5). A status
// filter finds a message with ANY recipient in that status (docs/decisions.md, "Bounces counted per recipient
// (issue 22, item 6)"): through message_statuses (migration 31), a row per message and status its recipients are in.
import { daySpan, type DaySpan } from '../count-spans.js';
import type { SqlValue } from './sql.js';
import { limitOffset } from '../paging.js';
import type { MessageStatus } from '../../domain/queue-state.js';
import type { MessageQuery } from '../message-log.js';
/** One SQL statement with its parameters, in the order their `?` appear. */
export interface Statement {
  sql: string;
  params: SqlValue[];
}

/** The two statements of a log listing: its page, and the count that becomes `total`. */
export interface ListStatements {
  page: Statement;
  count: Statement;
}

/**
 * An FTS5 query matching every word of the user's text as a whole word, with no operators of its own; a word
 * typed with a trailing `*` matches as a prefix. Whole words by default because FTS5 answers a prefix by
 * merging the full posting list of every term that starts with it before the first row comes out, so its
 * cost grows with the whole log (a `com*` reads every message), while whole words stream newest first and
 * stop with the page.
 */
export function ftsQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+\*?/gu) ?? [];
  if (!words.length) return null;
  // The words are looked for in the text columns only (the status column holds the message's headline status).
  return `{${SEARCHED_COLUMNS}} : (${words.map((w) => (w.endsWith('*') ? `"${w.slice(0, -1)}"*` : `"${w}"`)).join(' ')})`;
}

/** The columns of messages_fts a search's words are looked for in. */
const SEARCHED_COLUMNS = 'subject from_email recipients';

/**
 * The statements list() runs, or null when the search text has no word (nothing can match). Exported so the
 * log benchmarks explain exactly these. `teamId` null lists every team's log (the platform operators'): a
 * domain filter then needs its team (a domain's messages are found through the team's index).
 */
export function listStatements(teamId: number | null, query: MessageQuery): ListStatements | null {
  if (query.search === undefined) {
    const page = query.status === undefined ? indexedPage(teamId, query) : statusPage(teamId, query.status, query);
    return { page, count: query.status === undefined ? countedTotal(teamId, query) : statusCount(teamId, query.status, query) };
  }
  const match = ftsQuery(query.search);
  return match ? searchStatements(match, teamId, query) : null;
}

// --- How the log is listed ---
//
// Newest first is created_at order and rowid order alike: insert() reads created_at from the clock inside the
// write transaction that assigns the rowid, and every writer (API and MTA) takes the same database write lock,
// so both grow together; only a clock stepping back can set them apart, and then only around the step.
// Without a search, the indexes on (team_id, [status | domain_id,] created_at) give that order and stop at
// the page. A search walks the FTS index from its newest rowid down instead, and stops likewise.

/** Larger than any rowid: a lower bound that leaves nothing. */
const NO_ROWID_ABOVE = '9223372036854775807';
/** What toISOString() gives, and so what created_at holds: splitting bounds into UTC days relies on it. */
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The conditions whose value is given, joined with AND, each with its one parameter (none: always true). */
function allOf(conditions: ReadonlyArray<readonly [clause: string, value: SqlValue | undefined]>): Statement {
  const given = conditions.filter((c): c is readonly [string, SqlValue] => c[1] !== undefined);
  return { sql: given.map(([clause]) => clause).join(' AND ') || '1 = 1', params: given.map(([, value]) => value) };
}

/** The filters of a listing as conditions on `messages` under `alias`; a null team is every team. */
function conditions(alias: string, teamId: number | null, q: Pick<MessageQuery, 'status' | 'domainId' | 'from' | 'to'>): Statement {
  return allOf([
    [`${alias}.team_id = ?`, teamId ?? undefined],
    [`EXISTS (SELECT 1 FROM message_statuses s WHERE s.message_rowid = ${alias}.rowid AND s.status = ?)`, q.status],
    [`${alias}.domain_id = ?`, q.domainId],
    [`${alias}.created_at >= ?`, q.from],
    [`${alias}.created_at <= ?`, q.to],
  ]);
}

function indexedPage(teamId: number | null, q: MessageQuery): Statement {
  const where = conditions('m', teamId, q);
  return {
    sql: `SELECT m.rowid, m.* FROM messages m WHERE ${where.sql} ORDER BY m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
    params: [...where.params, ...limitOffset(q)],
  };
}

/** The conditions of a status listing on message_statuses `s` (and `m`, its message, for the domain). */
function statusConditions(teamId: number | null, status: MessageStatus, q: MessageQuery): Statement {
  return allOf([
    ['s.team_id = ?', teamId ?? undefined],
    ['s.status = ?', status],
    ['s.created_at >= ?', q.from],
    ['s.created_at <= ?', q.to],
    ['m.domain_id = ?', q.domainId],
  ]);
}

/**
 * The messages with a recipient in `status`, newest first, walked on message_statuses' index (team, status,
 * created_at; across teams status, created_at), which ends in the message's rowid: that order, no sort.
 */
function statusPage(teamId: number | null, status: MessageStatus, q: MessageQuery): Statement {
  const where = statusConditions(teamId, status, q);
  return {
    sql: `SELECT m.rowid, m.* FROM message_statuses s CROSS JOIN messages m ON m.rowid = s.message_rowid
      WHERE ${where.sql} ORDER BY s.created_at DESC, s.message_rowid DESC LIMIT ? OFFSET ?`,
    params: [...where.params, ...limitOffset(q)],
  };
}

/** How many messages have a recipient in `status`: a range of the same index (a row per message and status). */
function statusCount(teamId: number | null, status: MessageStatus, q: MessageQuery): Statement {
  const where = statusConditions(teamId, status, q);
  const join = q.domainId === undefined ? '' : ' CROSS JOIN messages m ON m.rowid = s.message_rowid';
  return { sql: `SELECT COUNT(*) AS n FROM message_statuses s${join} WHERE ${where.sql}`, params: where.params };
}

/**
 * The exact total without a search: whole days from message_counts (kept by triggers, see migration 4), and
 * the days the date bounds cut into counted in the index, so no count walks more than a day of messages.
 */
function countedTotal(teamId: number | null, q: MessageQuery): Statement {
  if ((q.from !== undefined && !ISO_MILLIS.test(q.from)) || (q.to !== undefined && !ISO_MILLIS.test(q.to))) {
    return rangeCount(teamId, q, { from: q.from, to: q.to }); // bounds the day arithmetic cannot split
  }
  const span = daySpan(q.from, q.to);
  const parts = [wholeDaysCount(teamId, q, span), ...span.cut.map((range) => rangeCount(teamId, q, range))];
  return { sql: `SELECT ${parts.map((p) => `(${p.sql})`).join(' + ')} AS n`, params: parts.flatMap((p) => p.params) };
}

function wholeDaysCount(teamId: number | null, q: MessageQuery, span: DaySpan): Statement {
  // Every team's whole days without a domain: the platform's counters (migration 20), a row per day and status.
  if (teamId === null && q.domainId === undefined) {
    const where = allOf([...span.wholeDays.map(({ op, day }) => [`day ${op} ?`, day] as const)]);
    return { sql: `SELECT COALESCE(SUM(n), 0) FROM platform_message_counts WHERE ${where.sql}`, params: where.params };
  }
  const where = allOf([['team_id = ?', teamId ?? undefined], ['domain_key = ?', q.domainId], ...span.wholeDays.map(({ op, day }) => [`day ${op} ?`, day] as const)]);
  return { sql: `SELECT COALESCE(SUM(n), 0) FROM message_counts WHERE ${where.sql}`, params: where.params };
}

function rangeCount(teamId: number | null, q: MessageQuery, range: { from?: string; to?: string }): Statement {
  const where = conditions('messages', teamId, { ...q, ...range });
  return { sql: `SELECT COUNT(*) FROM messages WHERE ${where.sql}`, params: where.params };
}

/**
 * A search, driven by the FTS index from its newest rowid down: each match is checked against the filters in
 * `messages`, and the walk stops once the page is full. A status filter is a lookup of each match in
 * message_statuses' primary key (a message may have recipients in several statuses, the index one only). The
 * FTS rowids are first narrowed to those between the team's oldest and newest message passing the filters
 * (rowid order is created_at order), so date bounds skip the newer matches instead of walking through them. The count walks the same way, up to its limit.
 * CROSS JOIN keeps the FTS index outside: with `messages` outside, SQLite would run the MATCH once per message.
 */
function searchStatements(match: string, teamId: number | null, q: MessageQuery): ListStatements {
  const oldest = edgeRowid(teamId, q, 'ASC');
  const newest = edgeRowid(teamId, q, 'DESC');
  const filters = conditions('m', teamId, q);
  const walk = `FROM messages_fts f CROSS JOIN messages m ON m.rowid = f.rowid
    WHERE messages_fts MATCH ? AND f.rowid >= COALESCE((${oldest.sql}), ${NO_ROWID_ABOVE}) AND f.rowid <= COALESCE((${newest.sql}), 0)
      AND ${filters.sql}
    ORDER BY f.rowid DESC`;
  const params = [match, ...oldest.params, ...newest.params, ...filters.params];
  return {
    page: { sql: `SELECT m.rowid, m.* ${walk} LIMIT ? OFFSET ?`, params: [...params, ...limitOffset(q)] },
    count: { sql: `SELECT COUNT(*) AS n FROM (SELECT 1 ${walk} LIMIT ?)`, params: [...params, q.searchCountLimit] },
  };
}

/**
 * The rowid of the team's oldest (ASC) or newest (DESC) message passing the filters, from an index. Across
 * teams only the date bounds narrow (messages_by_time): a status there would walk that index to its first match.
 */
function edgeRowid(teamId: number | null, q: MessageQuery, direction: 'ASC' | 'DESC'): Statement {
  // The status is left to the walk: a rare one would make this read walk its index to its first match.
  const where = conditions('messages', teamId, teamId === null ? { from: q.from, to: q.to } : { ...q, status: undefined });
  return { sql: `SELECT rowid FROM messages WHERE ${where.sql} ORDER BY created_at ${direction}, rowid ${direction} LIMIT 1`, params: where.params };
}
