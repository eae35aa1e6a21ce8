// How the message log is listed on PostgreSQL: the page and the count statements of a listing, from its filters
// (indexes on team, domain and date; whole days counted from message_counts; words through the generated `search`
// column and its GIN index). A status filter finds a message with ANY recipient in that status, through
// message_statuses (a row per message and status its recipients are in), as on SQLite.
import { daySpan, type DaySpan } from '../count-spans.js';
import { ParamList, type SqlValue } from './sql.js';
import { limitOffset } from '../paging.js';
import type { MessageStatus } from '../../domain/queue-state.js';
import type { MessageQuery } from '../message-log.js';

/** One SQL statement with its parameters (`$1`, `$2`, … in the order given). */
export interface Statement {
  sql: string;
  params: SqlValue[];
}

/**
 * The two statements of a log listing: the count that becomes `total`, run first, and its page, which may be
 * planned from that count (a search with few matches takes them all from the GIN index: searchStatements).
 */
export interface ListStatements {
  count: Statement;
  page(total: number): Statement;
}

/** The columns a listed message is read with (not the search column: a page never needs it). */
export const LISTED_COLUMNS = (alias: string): string =>
  ['rowid', 'id', 'team_id', 'domain_id', 'sending_key_id', 'source', 'envelope_from', 'from_email', 'from_name', 'subject', 'to_json', 'reply_to']
    .concat(['message_id_header', 'size', 'has_attachments', 'headers_json', 'status', 'error', 'created_at', 'sent_at', 'updated_at'])
    .map((c) => `${alias}.${c}`)
    .join(', ');

/**
 * A tsquery (for to_tsquery('simple', …)) matching every word of the user's text as a whole word, with no operator
 * of its own; a word typed with a trailing `*` matches as a prefix. A word is a run of letters and digits, as
 * FTS5's tokenizer splits text on SQLite; the search column is generated from the text with its punctuation made
 * spaces (migrations.ts), so an address is found by its parts there too. Each word is quoted, so nothing the user
 * types is read as an operator.
 */
export function tsQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+\*?/gu) ?? [];
  if (!words.length) return null;
  return words.map((w) => (w.endsWith('*') ? `'${w.slice(0, -1)}':*` : `'${w}'`)).join(' & ');
}

/** search_statuses as written: the statuses a message's recipients count in, space-separated (the column's lexemes: migrations.ts). */
export const searchStatuses = (counted: readonly MessageStatus[]): string => counted.join(' ');

/** The longest date range whose days a search names as lexemes; a longer one is left to the date index alone. */
const MOST_DAYS_NAMED = 62;
const DAY_MS = 86_400_000;

/**
 * What narrows a search besides its words, as a tsquery of the search column's own lexemes (which no typed word can
 * be: tsQuery keeps letters and digits only): the status (`=<status>`) and, for a date range of at most
 * MOST_DAYS_NAMED days, any of its UTC days (`@<day>`). The GIN index then intersects them with the words, where a
 * walk of every message with a common word would check each against the filters. The exact filters still apply
 * to what it finds (the bounds cut into their first and last day).
 */
export function narrowingQuery(q: Pick<MessageQuery, 'status' | 'from' | 'to'>): string | null {
  const parts: string[] = [];
  if (q.status !== undefined) parts.push(`'=${q.status}'`);
  const days = namedDays(q.from, q.to);
  if (days.length) parts.push(`(${days.map((d) => `'@${d}'`).join(' | ')})`);
  return parts.length ? parts.join(' & ') : null;
}

/** The UTC days from `from` to `to`, both ISO times as created_at holds them; none when either is missing or the span is too long. */
function namedDays(from: string | undefined, to: string | undefined): string[] {
  if (from === undefined || to === undefined || !ISO_MILLIS.test(from) || !ISO_MILLIS.test(to)) return [];
  const first = Date.parse(from.slice(0, 10));
  const last = Date.parse(to.slice(0, 10));
  if (last < first || (last - first) / DAY_MS + 1 > MOST_DAYS_NAMED) return [];
  const days: string[] = [];
  for (let day = first; day <= last; day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

/** The statements list() runs, or null when the search text has no word (nothing can match). */
export function listStatements(teamId: number | null, query: MessageQuery): ListStatements | null {
  if (query.search === undefined) {
    const { status } = query;
    if (status !== undefined) return { page: () => statusPage(teamId, status, query), count: statusCount(teamId, status, query) };
    return { page: () => indexedPage(teamId, query), count: countedTotal(teamId, query) };
  }
  const match = tsQuery(query.search);
  return match ? searchStatements(match, teamId, query) : null;
}

/** What created_at holds (toISOString()): splitting bounds into UTC days relies on it. */
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Filters = Pick<MessageQuery, 'status' | 'domainId' | 'from' | 'to'>;

/** The filters of a listing as conditions on `messages` under `alias`; a null team is every team. */
function conditions(alias: string, teamId: number | null, q: Filters, p: ParamList): string {
  const terms: string[] = [];
  if (teamId !== null) terms.push(`${alias}.team_id = ${p.add(teamId)}`);
  if (q.status !== undefined) terms.push(`EXISTS (SELECT 1 FROM message_statuses s WHERE s.message_rowid = ${alias}.rowid AND s.status = ${p.add(q.status)})`);
  if (q.domainId !== undefined) terms.push(`${alias}.domain_id = ${p.add(q.domainId)}`);
  if (q.from !== undefined) terms.push(`${alias}.created_at >= ${p.add(q.from)}`);
  if (q.to !== undefined) terms.push(`${alias}.created_at <= ${p.add(q.to)}`);
  return terms.join(' AND ') || 'TRUE';
}

const paged = (p: ParamList, q: MessageQuery): string => {
  const [limit, offset] = limitOffset(q);
  return `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
};

/** Newest first: created_at, then the row number (identity order) among messages of the same millisecond. */
function indexedPage(teamId: number | null, q: MessageQuery): Statement {
  const p = new ParamList();
  const where = conditions('m', teamId, q, p);
  return { sql: `SELECT ${LISTED_COLUMNS('m')} FROM messages m WHERE ${where} ORDER BY m.created_at DESC, m.rowid DESC ${paged(p, q)}`, params: p.values };
}

/** The conditions of a status listing on message_statuses `s` (and `m`, its message, for the domain). */
function statusConditions(teamId: number | null, status: MessageStatus, q: MessageQuery, p: ParamList): string {
  const terms = [`s.status = ${p.add(status)}`];
  if (teamId !== null) terms.push(`s.team_id = ${p.add(teamId)}`);
  if (q.from !== undefined) terms.push(`s.created_at >= ${p.add(q.from)}`);
  if (q.to !== undefined) terms.push(`s.created_at <= ${p.add(q.to)}`);
  if (q.domainId !== undefined) terms.push(`m.domain_id = ${p.add(q.domainId)}`);
  return terms.join(' AND ');
}

/** The messages with a recipient in `status`, newest first, walked on message_statuses' index (team, status, created_at). */
function statusPage(teamId: number | null, status: MessageStatus, q: MessageQuery): Statement {
  const p = new ParamList();
  const where = statusConditions(teamId, status, q, p);
  return {
    sql: `SELECT ${LISTED_COLUMNS('m')} FROM message_statuses s JOIN messages m ON m.rowid = s.message_rowid
      WHERE ${where} ORDER BY s.created_at DESC, s.message_rowid DESC ${paged(p, q)}`,
    params: p.values,
  };
}

function statusCount(teamId: number | null, status: MessageStatus, q: MessageQuery): Statement {
  const p = new ParamList();
  const where = statusConditions(teamId, status, q, p);
  const join = q.domainId === undefined ? '' : ' JOIN messages m ON m.rowid = s.message_rowid';
  return { sql: `SELECT COUNT(*) AS n FROM message_statuses s${join} WHERE ${where}`, params: p.values };
}

/**
 * The exact total without a search: whole days from message_counts (moved by the writes that record a message or
 * set its status: figure-counters.ts), and the days the date bounds cut into counted on the index, so no count
 * walks more than a day of messages.
 */
function countedTotal(teamId: number | null, q: MessageQuery): Statement {
  const p = new ParamList();
  if ((q.from !== undefined && !ISO_MILLIS.test(q.from)) || (q.to !== undefined && !ISO_MILLIS.test(q.to))) {
    return { sql: `SELECT COUNT(*) AS n FROM messages m WHERE ${conditions('m', teamId, q, p)}`, params: p.values }; // bounds the day arithmetic cannot split
  }
  const span = daySpan(q.from, q.to);
  const parts = [
    wholeDaysCount(teamId, q, span, p),
    ...span.cut.map((range) => `(SELECT COUNT(*) FROM messages m WHERE ${conditions('m', teamId, { ...q, ...range }, p)})`),
  ];
  return { sql: `SELECT (${parts.join(' + ')})::bigint AS n`, params: p.values };
}

function wholeDaysCount(teamId: number | null, q: MessageQuery, span: DaySpan, p: ParamList): string {
  const days = span.wholeDays.map(({ op, day }) => `day ${op} ${p.add(day)}`);
  // Every team's whole days without a domain: the platform's counters, a row per day and status.
  if (teamId === null && q.domainId === undefined) return `(SELECT COALESCE(SUM(n), 0) FROM platform_message_counts WHERE ${days.join(' AND ') || 'TRUE'})`;
  const terms = [...(teamId === null ? [] : [`team_id = ${p.add(teamId)}`]), ...(q.domainId === undefined ? [] : [`domain_key = ${p.add(q.domainId)}`]), ...days];
  return `(SELECT COALESCE(SUM(n), 0) FROM message_counts WHERE ${terms.join(' AND ')})`;
}

/**
 * Matches a search may have for its page to be taken from all of them (the GIN index gives them, then a sort)
 * rather than by walking the log newest first until a page is found. The walk costs about (messages walked ÷
 * matches) per row of the page, so it is quick for a common match and slow for a rare one, and PostgreSQL cannot
 * tell which: it estimates words and statuses as if independent, and a word that never occurs with a status made
 * it walk all 1,000,000 messages for none (bench/logs.ts). The count, run first, tells.
 */
const FEW_MATCHES = 2_000;

/**
 * A search: the GIN index on the search column gives the messages with every word and the status and days asked
 * for (narrowingQuery), each checked against the other filters, newest first. The status is found by its lexeme
 * alone; the date bounds are applied exactly as well. The count stops at its limit (the paging depth), so a common
 * word does not count the whole log.
 */
function searchStatements(match: string, teamId: number | null, q: MessageQuery): ListStatements {
  const p = new ParamList();
  const narrowing = narrowingQuery(q);
  const words = `to_tsquery('simple', ${p.add(match)})`;
  const tsquery = narrowing === null ? words : `(${words} && ${p.add(narrowing)}::tsquery)`;
  const walk = `FROM messages m WHERE m.search @@ ${tsquery} AND ${conditions('m', teamId, { ...q, status: undefined }, p)}`;
  const withParams = (build: (params: ParamList) => string): Statement => {
    const params = new ParamList();
    params.values.push(...p.values);
    return { sql: build(params), params: params.values };
  };
  const order = 'ORDER BY m.created_at DESC, m.rowid DESC';
  return {
    count: withParams((params) => `SELECT COUNT(*) AS n FROM (SELECT 1 ${walk} LIMIT ${params.add(q.searchCountLimit)}) AS found`),
    page: (total) =>
      total < q.searchCountLimit && total <= FEW_MATCHES
        ? withParams((params) => `WITH m AS MATERIALIZED (SELECT ${LISTED_COLUMNS('m')} ${walk}) SELECT * FROM m ${order} ${paged(params, q)}`)
        : withParams((params) => `SELECT ${LISTED_COLUMNS('m')} ${walk} ${order} ${paged(params, q)}`),
  };
}
