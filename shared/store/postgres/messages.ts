// The message log repository on PostgreSQL: messages, their recipients and every delivery attempt, read back and
// decoded at the edge; recording (message-insert.ts, a unit-of-work operation) and listing (log-listing.ts) have
// files of their own. Recipients' moves through delivery (claim, finish, release) are the queue's: see queue.ts.
import { Type, type Static } from '@sinclair/typebox';
import type { PgSql } from './sql.js';
import type { PageOf } from '../paging.js';
import { MESSAGE_STATUSES, RECIPIENT_STATES } from '../../domain/queue-state.js';
import {
  ATTEMPT_OUTCOMES,
  MESSAGE_SOURCES,
  RECIPIENT_KINDS,
  type DeliveryAttempt,
  type LoggedRecipient,
  type MessageLogDetail,
  type MessageLogEntry,
  type NumberedLogEntry,
} from '../../domain/message-log.js';
import type { MessageLogRepository, MessageQuery } from '../message-log.js';
import { countOf, Flag, Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { LISTED_COLUMNS, listStatements } from './log-listing.js';

const MessageRow = Type.Object({
  id: Text,
  team_id: Int,
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
  teamId: r.team_id,
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

/** A listed message with its number (messages.rowid, an identity column standing for SQLite's rowid). */
const decodeEntry = rowDecoder('message', Type.Composite([MessageRow, Type.Object({ rowid: Int })]), (r): NumberedLogEntry => ({ ...toEntry(r), logId: r.rowid }));

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

const DETAIL = `SELECT ${LISTED_COLUMNS('m')} FROM messages m`;

export class PgMessageStore implements MessageLogRepository {
  constructor(private readonly sql: PgSql) {}

  async get(id: string, teamId?: number): Promise<MessageLogDetail | undefined> {
    const row =
      teamId === undefined ? await this.sql.get(`${DETAIL} WHERE m.id = $1`, [id]) : await this.sql.get(`${DETAIL} WHERE m.id = $1 AND m.team_id = $2`, [id, teamId]);
    return row && decodeDetail(row);
  }

  async getByLogId(logId: number): Promise<MessageLogDetail | undefined> {
    const row = await this.sql.get(`${DETAIL} WHERE m.rowid = $1`, [logId]);
    return row && decodeDetail(row);
  }

  async body(id: string): Promise<Buffer | undefined> {
    const row = await this.sql.get('SELECT body FROM message_bodies WHERE message_id = $1', [id]);
    return row && decodeBody(row);
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all('SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id = ANY($1::text[]) GROUP BY message_id', [messageIds]);
    return new Map(rows.map(decodeRecipientCount));
  }

  async recipientsOf(messageId: string): Promise<LoggedRecipient[]> {
    const rows = await this.sql.all(
      `SELECT id, message_id, email, name, kind, domain, state, reason, attempts, next_attempt_at, last_reply, queued_at, updated_at
       FROM recipients WHERE message_id = $1 ORDER BY id`,
      [messageId],
    );
    return rows.map(decodeRecipient);
  }

  async attemptsOf(messageId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.sql.all(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = $1 ORDER BY a.id',
      [messageId],
    );
    return rows.map(decodeAttempt);
  }

  /** One page of a team's log (or every team's: null), newest first, and its total (see MessageQuery.searchCountLimit). */
  async list(teamId: number | null, query: MessageQuery): Promise<PageOf<NumberedLogEntry>> {
    const statements = listStatements(teamId, query);
    if (!statements) return { rows: [], total: 0 };
    const rows = await this.sql.all(statements.page.sql, statements.page.params);
    const count = await this.sql.get(statements.count.sql, statements.count.params);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  /** Every recipient by state, history included: a scan of the whole table, for tests and one-off checks. */
  async countByState(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.sql.all('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state ORDER BY state')).map(decodeStateCount));
  }
}
