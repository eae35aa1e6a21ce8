// Messages, their recipients and every delivery attempt: recording accepted messages, the log, the bodies.
// Recipients' moves through delivery (claim, finish, release) are the queue's: see queue.ts.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { AccountStore } from './accounts.js';
import { nowIso } from '../../shared/time.js';
import { messageStatusOf, type MessageStatus, type RecipientState } from '../../domain/queue-state.js';
import { chunksByParams, WriteBatcher } from './write-batch.js';
import { groupBy } from '../../shared/group-by.js';

export type RecipientKind = 'to' | 'cc' | 'bcc';
export type MessageSource = 'http' | 'smtp';

export interface NewRecipient {
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: Extract<RecipientState, 'queued' | 'suppressed' | 'failed'>;
  reason: string;
}

export interface NewMessage {
  id: string;
  accountId: number;
  rootId: number;
  domainId: string | null;
  sendingKeyId: number | null;
  source: MessageSource;
  envelopeFrom: string;
  fromEmail: string;
  fromName: string;
  subject: string;
  to: Array<{ email: string; name?: string }>;
  replyTo: string | null;
  messageIdHeader: string;
  size: number;
  hasAttachments: boolean;
  headers: Record<string, string>;
  recipients: NewRecipient[];
  /** The message as it will be signed and sent; kept until no recipient is left in flight (none when cost is 0). */
  body: Buffer;
  /** Credits taken from the pooled balance: one per recipient that will be sent. */
  cost: number;
  /** Set when no recipient can be sent: why the message failed. */
  error: string | null;
}

export interface MessageRow extends Record<string, unknown> {
  rowid: number;
  id: string;
  account_id: number;
  domain_id: string | null;
  sending_key_id: number | null;
  source: MessageSource;
  envelope_from: string;
  from_email: string;
  from_name: string;
  subject: string;
  to_json: string;
  reply_to: string | null;
  message_id_header: string;
  size: number;
  has_attachments: number;
  headers_json: string;
  status: MessageStatus;
  error: string | null;
  created_at: string;
  sent_at: string | null;
  updated_at: string;
}

export interface RecipientRow extends Record<string, unknown> {
  id: number;
  message_id: string;
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: RecipientState;
  reason: string;
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  last_reply: string | null;
  queued_at: number;
  updated_at: string;
}

export interface AttemptRow extends Record<string, unknown> {
  recipient_id: number;
  at: string;
  mx_host: string | null;
  ip: string | null;
  outcome: 'delivered' | 'deferred' | 'bounced' | 'failed';
  reply: string;
}

export interface MessageQuery extends PageRequest {
  status?: MessageStatus;
  domainId?: string;
  /** Inclusive bounds of created_at, as ISO 8601 UTC with milliseconds (what toISOString() gives). */
  from?: string;
  to?: string;
  search?: string;
  /**
   * A search counts its matches up to this many (the paging depth): an exact count would visit every match
   * in the whole log, while no page beyond this many records can be asked for anyway.
   */
  searchCountLimit: number;
}

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
  // The words are looked for in the text columns only: the status column is matched by name (searchMatch).
  return `{${SEARCHED_COLUMNS}} : (${words.map((w) => (w.endsWith('*') ? `"${w.slice(0, -1)}"*` : `"${w}"`)).join(' ')})`;
}

/** The columns of messages_fts a search's words are looked for in. */
const SEARCHED_COLUMNS = 'subject from_email recipients';

/** The MATCH of a search: its words, and the status when one is asked for, which FTS5 intersects itself. */
function searchMatch(words: string, status: MessageStatus | undefined): string {
  return status === undefined ? words : `${words} AND status : "${status}"`;
}

/**
 * The statements list() runs, or null when the search text has no word (nothing can match). Exported so the
 * log benchmark explains exactly these.
 */
export function listStatements(accountId: number, query: MessageQuery): ListStatements | null {
  if (query.search === undefined) return { page: indexedPage(accountId, query), count: countedTotal(accountId, query) };
  const match = ftsQuery(query.search);
  return match ? searchStatements(match, accountId, query) : null;
}

// --- How the log is listed ---
//
// Newest first is created_at order and rowid order alike: insert() reads created_at from the clock inside the
// write transaction that assigns the rowid, and every writer (API and MTA) takes the same database write lock,
// so both grow together; only a clock stepping back can set them apart, and then only around the step.
// Without a search, the indexes on (account_id, [status | domain_id,] created_at) give that order and stop at
// the page. A search walks the FTS index from its newest rowid down instead, and stops likewise.

/** Larger than any rowid: a lower bound that leaves nothing. */
const NO_ROWID_ABOVE = '9223372036854775807';
/** What toISOString() gives, and so what created_at holds: splitting bounds into UTC days relies on it. */
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The conditions whose value is given, joined with AND, each with its one parameter. */
function allOf(conditions: ReadonlyArray<readonly [clause: string, value: SqlValue | undefined]>): Statement {
  const given = conditions.filter((c): c is readonly [string, SqlValue] => c[1] !== undefined);
  return { sql: given.map(([clause]) => clause).join(' AND '), params: given.map(([, value]) => value) };
}

/** The filters of a listing as conditions on `messages` under `alias`. */
function conditions(alias: string, accountId: number, q: Pick<MessageQuery, 'status' | 'domainId' | 'from' | 'to'>): Statement {
  return allOf([
    [`${alias}.account_id = ?`, accountId],
    [`${alias}.status = ?`, q.status],
    [`${alias}.domain_id = ?`, q.domainId],
    [`${alias}.created_at >= ?`, q.from],
    [`${alias}.created_at <= ?`, q.to],
  ]);
}

function indexedPage(accountId: number, q: MessageQuery): Statement {
  const where = conditions('m', accountId, q);
  return {
    sql: `SELECT m.rowid, m.* FROM messages m WHERE ${where.sql} ORDER BY m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
    params: [...where.params, ...limitOffset(q)],
  };
}

/**
 * The exact total without a search: whole days from message_counts (kept by triggers, see migration 4), and
 * the days the date bounds cut into counted in the index, so no count walks more than a day of messages.
 */
function countedTotal(accountId: number, q: MessageQuery): Statement {
  if ((q.from !== undefined && !ISO_MILLIS.test(q.from)) || (q.to !== undefined && !ISO_MILLIS.test(q.to))) {
    return rangeCount(accountId, q, { from: q.from, to: q.to }); // bounds the day arithmetic cannot split
  }
  const span = daySpan(q.from, q.to);
  const parts = [wholeDaysCount(accountId, q, span), ...span.cut.map((range) => rangeCount(accountId, q, range))];
  return { sql: `SELECT ${parts.map((p) => `(${p.sql})`).join(' + ')} AS n`, params: parts.flatMap((p) => p.params) };
}

function wholeDaysCount(accountId: number, q: MessageQuery, span: DaySpan): Statement {
  const where = allOf([
    ['account_id = ?', accountId],
    ['status = ?', q.status],
    ['domain_key = ?', q.domainId],
    ...span.wholeDays.map(({ clause, day }) => [clause, day] as const),
  ]);
  return { sql: `SELECT COALESCE(SUM(n), 0) FROM message_counts WHERE ${where.sql}`, params: where.params };
}

function rangeCount(accountId: number, q: MessageQuery, range: { from?: string; to?: string }): Statement {
  const where = conditions('messages', accountId, { ...q, ...range });
  return { sql: `SELECT COUNT(*) FROM messages WHERE ${where.sql}`, params: where.params };
}

interface DaySpan {
  /** Conditions on message_counts.day that keep the whole UTC days within the bounds. */
  wholeDays: Array<{ clause: string; day: string }>;
  /** The days a bound cuts into, each narrowed to the bounds; the index answers them. */
  cut: Array<{ from: string; to: string }>;
}

const dayOf = (iso: string): string => iso.slice(0, 10);
const startOf = (day: string): string => `${day}T00:00:00.000Z`;
const endOf = (day: string): string => `${day}T23:59:59.999Z`;

/** Splits inclusive created_at bounds into whole days and the (at most two) days they cut into. */
function daySpan(from: string | undefined, to: string | undefined): DaySpan {
  const cutFrom = from !== undefined && from > startOf(dayOf(from)) ? dayOf(from) : undefined;
  const cutTo = to !== undefined && to < endOf(dayOf(to)) ? dayOf(to) : undefined;
  const cutDays = [...new Set([cutFrom, cutTo])].filter((day): day is string => day !== undefined);
  const wholeDays: DaySpan['wholeDays'] = [];
  // A cut day is counted apart, so the whole days start after it (end before it): no date arithmetic needed.
  if (from !== undefined) wholeDays.push(cutFrom ? { clause: 'day > ?', day: cutFrom } : { clause: 'day >= ?', day: dayOf(from) });
  if (to !== undefined) wholeDays.push(cutTo ? { clause: 'day < ?', day: cutTo } : { clause: 'day <= ?', day: dayOf(to) });
  return {
    wholeDays,
    // Narrowed to both bounds, so a day cut at both ends, or bounds the wrong way round, count only what is inside.
    cut: cutDays.map((day) => ({
      from: from !== undefined && from > startOf(day) ? from : startOf(day),
      to: to !== undefined && to < endOf(day) ? to : endOf(day),
    })),
  };
}

/**
 * A search, driven by the FTS index from its newest rowid down: each match is checked against the filters in
 * `messages`, and the walk stops once the page is full. A status filter is part of the MATCH too (migration
 * 6), so a rare status with a common word skips through the index instead of reading every match's row. The
 * FTS rowids are first narrowed to those between the account's oldest and newest message passing the filters
 * (rowid order is created_at order), so date bounds skip the newer matches instead of walking through them. The count walks the same way, up to its limit.
 * CROSS JOIN keeps the FTS index outside: with `messages` outside, SQLite would run the MATCH once per message.
 */
function searchStatements(match: string, accountId: number, q: MessageQuery): ListStatements {
  const oldest = edgeRowid(accountId, q, 'ASC');
  const newest = edgeRowid(accountId, q, 'DESC');
  const filters = conditions('m', accountId, q);
  const walk = `FROM messages_fts f CROSS JOIN messages m ON m.rowid = f.rowid
    WHERE messages_fts MATCH ? AND f.rowid >= COALESCE((${oldest.sql}), ${NO_ROWID_ABOVE}) AND f.rowid <= COALESCE((${newest.sql}), 0)
      AND ${filters.sql}
    ORDER BY f.rowid DESC`;
  const params = [searchMatch(match, q.status), ...oldest.params, ...newest.params, ...filters.params];
  return {
    page: { sql: `SELECT m.rowid, m.* ${walk} LIMIT ? OFFSET ?`, params: [...params, ...limitOffset(q)] },
    count: { sql: `SELECT COUNT(*) AS n FROM (SELECT 1 ${walk} LIMIT ?)`, params: [...params, q.searchCountLimit] },
  };
}

/** The rowid of the account's oldest (ASC) or newest (DESC) message passing the filters, from an index. */
function edgeRowid(accountId: number, q: MessageQuery, direction: 'ASC' | 'DESC'): Statement {
  const where = conditions('messages', accountId, q);
  return { sql: `SELECT rowid FROM messages WHERE ${where.sql} ORDER BY created_at ${direction}, rowid ${direction} LIMIT 1`, params: where.params };
}

export type InsertOutcome = Array<{ id: number; due: number }> | 'insufficient_balance';

export class MessageStore {
  private readonly inserts: WriteBatcher<NewMessage, InsertOutcome>;

  constructor(private readonly sql: Sql) {
    this.inserts = new WriteBatcher(sql, insertMessages);
  }

  /**
   * Records an accepted message and its recipients, and takes its credits, in one transaction. Returns the
   * queued recipients and when they are due, from the writing transaction itself: a read through the reader
   * connection right after the commit may still see an older snapshot and miss them. Submissions arriving
   * together are written together (see WriteBatcher) and share one commit and one fsync.
   */
  insert(m: NewMessage): Promise<InsertOutcome> {
    return this.inserts.submit(m);
  }

  async get(id: string, accountId?: number): Promise<MessageRow | undefined> {
    const where = accountId === undefined ? 'id = ?' : 'id = ? AND account_id = ?';
    return this.sql.get<MessageRow>(`SELECT rowid, * FROM messages WHERE ${where}`, accountId === undefined ? [id] : [id, accountId]);
  }

  /** A message's body, while any of its recipients is in flight. */
  async body(id: string): Promise<Buffer | undefined> {
    return (await this.sql.get<{ body: Buffer }>('SELECT body FROM message_bodies WHERE message_id = ?', [id]))?.body;
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all<{ message_id: string; n: number }>(
      `SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id IN (${messageIds.map(() => '?').join(',')}) GROUP BY message_id`,
      messageIds,
    );
    return new Map(rows.map((r) => [r.message_id, r.n]));
  }

  async recipientsOf(messageId: string): Promise<RecipientRow[]> {
    return this.sql.all<RecipientRow>('SELECT * FROM recipients WHERE message_id = ? ORDER BY id', [messageId]);
  }

  async attemptsOf(messageId: string): Promise<AttemptRow[]> {
    return this.sql.all<AttemptRow>(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = ? ORDER BY a.id',
      [messageId],
    );
  }

  /** One page of an account's log, newest first, and its total (see MessageQuery.searchCountLimit). */
  async list(accountId: number, query: MessageQuery): Promise<PageOf<MessageRow>> {
    const statements = listStatements(accountId, query);
    if (!statements) return { rows: [], total: 0 };
    const rows = await this.sql.all<MessageRow>(statements.page.sql, statements.page.params);
    const count = await this.sql.get<{ n: number }>(statements.count.sql, statements.count.params);
    return { rows, total: count?.n ?? 0 };
  }

  /** Every recipient by state, history included: a scan of the whole table, for tests and one-off checks. */
  async countByState(): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state');
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }
}

/** Each message's credits: one debit per paying account when it can pay for the whole batch, else one by one, in order. */
async function debitAll(q: Queryable, messages: readonly NewMessage[]): Promise<Set<NewMessage>> {
  const unpaid = new Set<NewMessage>();
  for (const [rootId, list] of groupBy(messages.filter((m) => m.cost > 0), (m) => m.rootId)) {
    const total = list.reduce((sum, m) => sum + m.cost, 0);
    if (await AccountStore.debit(q, rootId, total)) continue;
    for (const m of list) if (!(await AccountStore.debit(q, rootId, m.cost))) unpaid.add(m);
  }
  return unpaid;
}

const MESSAGE_COLUMNS = 19;
const RECIPIENT_COLUMNS = 10;

async function insertMessageRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, number>> {
  const rowids = new Map<string, number>();
  for (const chunk of chunksByParams(messages, MESSAGE_COLUMNS)) {
    const rows = await q.all<{ rowid: number; id: string }>(
      `INSERT INTO messages (id, account_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
         reply_to, message_id_header, size, has_attachments, headers_json, status, error, created_at, updated_at)
       VALUES ${chunk.map(() => `(${Array(MESSAGE_COLUMNS).fill('?').join(', ')})`).join(', ')} RETURNING rowid, id`,
      chunk.flatMap((m) => [m.id, m.accountId, m.domainId, m.sendingKeyId, m.source, m.envelopeFrom, m.fromEmail, m.fromName, m.subject,
        JSON.stringify(m.to), m.replyTo, m.messageIdHeader, m.size, +m.hasAttachments, JSON.stringify(m.headers),
        messageStatusOf(m.recipients.map((r) => r.state)), m.error, now, now]),
    );
    for (const r of rows) rowids.set(r.id, r.rowid);
  }
  return rowids;
}

/** The queued recipients of each message, and when they are due (now). */
async function insertRecipientRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, Array<{ id: number; due: number }>>> {
  const queuedAt = Date.now();
  const due = new Map<string, Array<{ id: number; due: number }>>(messages.map((m) => [m.id, []]));
  const rows = messages.flatMap((m) => m.recipients.map((r) => ({ messageId: m.id, r })));
  for (const chunk of chunksByParams(rows, RECIPIENT_COLUMNS)) {
    const inserted = await q.all<{ id: number; message_id: string; state: string }>(
      `INSERT INTO recipients (message_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} RETURNING id, message_id, state`,
      chunk.flatMap(({ messageId, r }) => [messageId, r.email, r.name, r.kind, r.domain, r.state, r.reason, r.state === 'queued' ? queuedAt : null, queuedAt, now]),
    );
    for (const r of inserted) if (r.state === 'queued') due.get(r.message_id)!.push({ id: r.id, due: queuedAt });
  }
  for (const list of due.values()) list.sort((a, b) => a.id - b.id);
  return due;
}

/** Indexes the new messages for search, from the view that says what an index row holds (migration 6). */
async function indexForSearch(q: Queryable, rowids: ReadonlyMap<string, number>): Promise<void> {
  for (const chunk of chunksByParams([...rowids.values()], 1)) {
    await q.run(
      `INSERT INTO messages_fts (rowid, subject, from_email, recipients, status)
       SELECT * FROM message_search_rows WHERE rowid IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
  }
}

/** The bodies of the messages that have something to send. */
async function insertBodies(q: Queryable, messages: readonly NewMessage[]): Promise<void> {
  const sendable = messages.filter((m) => m.cost > 0);
  for (const chunk of chunksByParams(sendable, 2)) {
    await q.run(`INSERT INTO message_bodies (message_id, body) VALUES ${chunk.map(() => '(?, ?)').join(', ')}`, chunk.flatMap((m) => [m.id, m.body]));
  }
}

/** Writes a batch of accepted messages: credits, message rows, recipients, bodies and the search index. */
async function insertMessages(q: Queryable, messages: readonly NewMessage[]): Promise<InsertOutcome[]> {
  const unpaid = await debitAll(q, messages);
  const paid = messages.filter((m) => !unpaid.has(m));
  if (!paid.length) return messages.map(() => 'insufficient_balance');
  const now = nowIso();
  const rowids = await insertMessageRows(q, paid, now);
  const due = await insertRecipientRows(q, paid, now);
  await insertBodies(q, paid);
  await indexForSearch(q, rowids);
  return messages.map((m) => (unpaid.has(m) ? 'insufficient_balance' : due.get(m.id)!));
}

