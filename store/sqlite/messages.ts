// Messages, their recipients and every delivery attempt: recording accepted messages, the log, the bodies.
// Recipients' moves through delivery (claim, finish, release) are the queue's: see queue.ts.
import { Type, type Static } from '@sinclair/typebox';
import type { Queryable, Sql, SqlValue } from './sql.js';
import { limitOffset, type PageOf } from '../paging.js';
import { AccountStore } from './accounts.js';
import { nowIso } from '../../shared/time.js';
import {
  MESSAGE_STATUSES,
  messageStatusOf,
  RECIPIENT_STATES,
  type MessageStatus,
} from '../../domain/queue-state.js';
import {
  ATTEMPT_OUTCOMES,
  MESSAGE_SOURCES,
  RECIPIENT_KINDS,
  type DeliveryAttempt,
  type LoggedRecipient,
  type MessageLogDetail,
  type MessageLogEntry,
} from '../../domain/message-log.js';
import type { InsertOutcome, MessageLogRepository, MessageQuery, NewMessage } from '../message-log.js';
import { countOf, Flag, Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { chunksByParams, WriteBatcher } from './write-batch.js';
import { groupBy } from '../../shared/group-by.js';

const MessageRow = Type.Object({
  id: Text,
  account_id: Int,
  domain_id: Nullable(Text),
  sending_key_id: Nullable(Int),
  source: OneOf(MESSAGE_SOURCES),
  envelope_from: Text,
  from_email: Text,
  from_name: Text,
  subject: Text,
  to_json: Text,
  reply_to: Nullable(Text),
  message_id_header: Text,
  size: Int,
  has_attachments: Flag,
  headers_json: Text,
  status: OneOf(MESSAGE_STATUSES),
  error: Nullable(Text),
  created_at: Text,
  sent_at: Nullable(Text),
  updated_at: Text,
});

const decodeTo = jsonDecoder('message addressees', Type.Array(Type.Object({ email: Text, name: Type.Optional(Text) })));
const decodeHeaders = jsonDecoder('message headers', Type.Record(Text, Text));

const toEntry = (r: Static<typeof MessageRow>): MessageLogEntry => ({
  id: r.id,
  accountId: r.account_id,
  domainId: r.domain_id,
  sendingKeyId: r.sending_key_id,
  source: r.source,
  envelopeFrom: r.envelope_from,
  fromEmail: r.from_email,
  fromName: r.from_name,
  subject: r.subject,
  to: decodeTo(r.to_json),
  replyTo: r.reply_to,
  messageIdHeader: r.message_id_header,
  size: r.size,
  hasAttachments: r.has_attachments === 1,
  status: r.status,
  error: r.error,
  createdAt: r.created_at,
  sentAt: r.sent_at,
  updatedAt: r.updated_at,
});

const decodeEntry = rowDecoder('message', MessageRow, toEntry);

/** A listed message leaves its headers unread: no list shows them, and parsing them for a page of rows was most of its decoding. */
const decodeDetail = rowDecoder('message', MessageRow, (r): MessageLogDetail => ({ ...toEntry(r), headers: decodeHeaders(r.headers_json) }));

const decodeRecipient = rowDecoder(
  'recipient',
  Type.Object({
    id: Int,
    message_id: Text,
    email: Text,
    name: Text,
    kind: OneOf(RECIPIENT_KINDS),
    domain: Text,
    state: OneOf(RECIPIENT_STATES),
    reason: Text,
    attempts: Int,
    next_attempt_at: Nullable(Int),
    last_reply: Nullable(Text),
    queued_at: Int,
    updated_at: Text,
  }),
  (r): LoggedRecipient => ({
    id: r.id,
    messageId: r.message_id,
    email: r.email,
    name: r.name,
    kind: r.kind,
    domain: r.domain,
    state: r.state,
    reason: r.reason,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastReply: r.last_reply,
    queuedAt: r.queued_at,
    updatedAt: r.updated_at,
  }),
);

const decodeAttempt = rowDecoder(
  'delivery attempt',
  Type.Object({ recipient_id: Int, at: Text, mx_host: Nullable(Text), ip: Nullable(Text), outcome: OneOf(ATTEMPT_OUTCOMES), reply: Text }),
  (r): DeliveryAttempt => ({ recipientId: r.recipient_id, at: r.at, mxHost: r.mx_host, ip: r.ip, outcome: r.outcome, reply: r.reply }),
);

const decodeBody = rowDecoder('message body', Type.Object({ body: Type.Uint8Array() }), (r) => Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
const decodeRecipientCount = rowDecoder('recipient count', Type.Object({ message_id: Text, n: Int }), (r) => [r.message_id, r.n] as const);
const decodeStateCount = rowDecoder('state count', Type.Object({ state: Text, n: Int }), (r) => [r.state, r.n] as const);

/** A recipient row as the queue reads it (claim). */
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


export class MessageStore implements MessageLogRepository {
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

  async get(id: string, accountId?: number): Promise<MessageLogDetail | undefined> {
    const where = accountId === undefined ? 'id = ?' : 'id = ? AND account_id = ?';
    const row = await this.sql.get(`SELECT * FROM messages WHERE ${where}`, accountId === undefined ? [id] : [id, accountId]);
    return row && decodeDetail(row);
  }

  async body(id: string): Promise<Buffer | undefined> {
    const row = await this.sql.get('SELECT body FROM message_bodies WHERE message_id = ?', [id]);
    return row && decodeBody(row);
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all(
      `SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id IN (${messageIds.map(() => '?').join(',')}) GROUP BY message_id`,
      messageIds,
    );
    return new Map(rows.map(decodeRecipientCount));
  }

  async recipientsOf(messageId: string): Promise<LoggedRecipient[]> {
    return (await this.sql.all('SELECT * FROM recipients WHERE message_id = ? ORDER BY id', [messageId])).map(decodeRecipient);
  }

  async attemptsOf(messageId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.sql.all(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = ? ORDER BY a.id',
      [messageId],
    );
    return rows.map(decodeAttempt);
  }

  /** One page of an account's log, newest first, and its total (see MessageQuery.searchCountLimit). */
  async list(accountId: number, query: MessageQuery): Promise<PageOf<MessageLogEntry>> {
    const statements = listStatements(accountId, query);
    if (!statements) return { rows: [], total: 0 };
    const rows = await this.sql.all(statements.page.sql, statements.page.params);
    const count = await this.sql.get(statements.count.sql, statements.count.params);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  /** Every recipient by state, history included: a scan of the whole table, for tests and one-off checks. */
  async countByState(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.sql.all('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state')).map(decodeStateCount));
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

const decodeInsertedMessage = rowDecoder('inserted message', Type.Object({ rowid: Int, id: Text }), (r) => r);
const decodeInsertedRecipient = rowDecoder('inserted recipient', Type.Object({ id: Int, message_id: Text, state: Text }), (r) => r);

const MESSAGE_COLUMNS = 19;
const RECIPIENT_COLUMNS = 10;

async function insertMessageRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, number>> {
  const rowids = new Map<string, number>();
  for (const chunk of chunksByParams(messages, MESSAGE_COLUMNS)) {
    const rows = await q.all(
      `INSERT INTO messages (id, account_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
         reply_to, message_id_header, size, has_attachments, headers_json, status, error, created_at, updated_at)
       VALUES ${chunk.map(() => `(${Array(MESSAGE_COLUMNS).fill('?').join(', ')})`).join(', ')} RETURNING rowid, id`,
      chunk.flatMap((m) => [m.id, m.accountId, m.domainId, m.sendingKeyId, m.source, m.envelopeFrom, m.fromEmail, m.fromName, m.subject,
        JSON.stringify(m.to), m.replyTo, m.messageIdHeader, m.size, +m.hasAttachments, JSON.stringify(m.headers),
        messageStatusOf(m.recipients.map((r) => r.state)), m.error, now, now]),
    );
    for (const r of rows.map(decodeInsertedMessage)) rowids.set(r.id, r.rowid);
  }
  return rowids;
}

/** The queued recipients of each message, and when they are due (now). */
async function insertRecipientRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, Array<{ id: number; due: number }>>> {
  const queuedAt = Date.now();
  const due = new Map<string, Array<{ id: number; due: number }>>(messages.map((m) => [m.id, []]));
  const rows = messages.flatMap((m) => m.recipients.map((r) => ({ messageId: m.id, r })));
  for (const chunk of chunksByParams(rows, RECIPIENT_COLUMNS)) {
    const inserted = await q.all(
      `INSERT INTO recipients (message_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} RETURNING id, message_id, state`,
      chunk.flatMap(({ messageId, r }) => [messageId, r.email, r.name, r.kind, r.domain, r.state, r.reason, r.state === 'queued' ? queuedAt : null, queuedAt, now]),
    );
    for (const r of inserted.map(decodeInsertedRecipient)) if (r.state === 'queued') due.get(r.message_id)!.push({ id: r.id, due: queuedAt });
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

