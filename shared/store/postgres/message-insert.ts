// Recording accepted messages on PostgreSQL: a batch of messages (their credits already taken by the intake, in the
// same transaction: shared/intake/record.ts) written as message rows (with the text the search column is generated
// from), recipients, bodies and their figure and message counts. Each table takes one statement for the whole
// batch, its rows sent as arrays (one parameter per column): the statement's text, and so its prepared plan, is
// the same for every batch size.
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import type { NewMessage } from '../message-log.js';
import { Int, rowDecoder, Text } from './decode.js';
import { nowIso } from '../../time.js';
import { moveCounts } from './figure-counters.js';
import { searchStatuses } from './log-listing.js';
import { MESSAGE_STATUSES } from '../../domain/queue-state.js';

const decodeInsertedMessage = rowDecoder('inserted message', Type.Object({ rowid: Int, id: Text }), (r) => r);
const decodeInsertedRecipient = rowDecoder('inserted recipient', Type.Object({ id: Int, message_id: Text, state: Text }), (r) => r);

/** What the search column is generated from besides the message's own columns: its recipients' addresses and names, in order. */
const searchRecipients = (m: { recipients: ReadonlyArray<{ email: string; name: string }> }): string => m.recipients.map((r) => `${r.email} ${r.name}`).join(' ');

const INSERT_MESSAGES = `INSERT INTO messages (id, team_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
    reply_to, message_id_header, size, has_attachments, headers_json, status, error, search_recipients, search_statuses, created_at, updated_at)
  SELECT id, team_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
    reply_to, message_id_header, size, has_attachments, headers_json, status, error, search_recipients, search_statuses, $1, $1
  FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
    $12::text[], $13::text[], $14::bigint[], $15::smallint[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[])
    WITH ORDINALITY AS m(id, team_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
      reply_to, message_id_header, size, has_attachments, headers_json, status, error, search_recipients, search_statuses, n)
  ORDER BY n
  RETURNING rowid, id`;

/** What a message row is written from, whether the intake records it or the benchmarks' loader writes it. */
type LoggedFields = Pick<
  NewMessage,
  | 'id'
  | 'teamId'
  | 'domainId'
  | 'sendingKeyId'
  | 'source'
  | 'envelopeFrom'
  | 'fromEmail'
  | 'fromName'
  | 'subject'
  | 'to'
  | 'replyTo'
  | 'messageIdHeader'
  | 'size'
  | 'hasAttachments'
  | 'headers'
  | 'status'
  | 'error'
  | 'figures'
> & { recipients: ReadonlyArray<{ email: string; name: string }> };

/**
 * The message rows' logged columns, one array each, in the order of the INSERT statements here and in the
 * benchmarks' loader (id … error, then search_recipients and search_statuses): one list for both, so the loader
 * writes what the intake writes. A new message's recipients count in the statuses its figures start in.
 */
export function loggedColumns(messages: readonly LoggedFields[]): SqlValue[] {
  const column = (value: (m: LoggedFields) => string | number | null): SqlValue => messages.map(value);
  return [
    column((m) => m.id),
    column((m) => m.teamId),
    column((m) => m.domainId),
    column((m) => m.sendingKeyId),
    column((m) => m.source),
    column((m) => m.envelopeFrom),
    column((m) => m.fromEmail),
    column((m) => m.fromName),
    column((m) => m.subject),
    column((m) => JSON.stringify(m.to)),
    column((m) => m.replyTo),
    column((m) => m.messageIdHeader),
    column((m) => m.size),
    column((m) => +m.hasAttachments),
    column((m) => JSON.stringify(m.headers)),
    column((m) => m.status),
    column((m) => m.error),
    column(searchRecipients),
    column((m) => searchStatuses(MESSAGE_STATUSES.filter((status) => m.figures.some((f) => f.status === status && f.by > 0)))),
  ];
}

async function insertMessageRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, number>> {
  const rows = await q.all(INSERT_MESSAGES, [now, ...loggedColumns(messages)]);
  return new Map(rows.map(decodeInsertedMessage).map((r) => [r.id, r.rowid]));
}

/** The recipients in the order given (their ids grow in that order: the log lists them by id). */
const INSERT_RECIPIENTS = `INSERT INTO recipients (message_id, team_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at)
  SELECT message_id, team_id, email, name, kind, domain, state, reason, CASE WHEN state = 'queued' THEN $1::bigint END, $1, $2
  FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
    WITH ORDINALITY AS r(message_id, team_id, email, name, kind, domain, state, reason, n)
  ORDER BY n
  RETURNING id, message_id, state`;

/** The queued recipients of each message, and when they are due (now). */
async function insertRecipientRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, Array<{ id: number; due: number }>>> {
  const queuedAt = Date.now();
  const due = new Map<string, Array<{ id: number; due: number }>>(messages.map((m) => [m.id, []]));
  const rows = messages.flatMap((m) => m.recipients.map((r) => ({ m, r })));
  if (!rows.length) return due;
  const inserted = await q.all(INSERT_RECIPIENTS, [
    queuedAt,
    now,
    rows.map(({ m }) => m.id),
    rows.map(({ m }) => m.teamId),
    rows.map(({ r }) => r.email),
    rows.map(({ r }) => r.name),
    rows.map(({ r }) => r.kind),
    rows.map(({ r }) => r.domain),
    rows.map(({ r }) => r.state),
    rows.map(({ r }) => r.reason),
  ]);
  for (const r of inserted.map(decodeInsertedRecipient)) if (r.state === 'queued') due.get(r.message_id)!.push({ id: r.id, due: queuedAt });
  for (const list of due.values()) list.sort((a, b) => a.id - b.id);
  return due;
}

/** The bodies given (a message with nothing to send has none), in one statement: node-postgres sends a Buffer in an array as bytea. */
async function insertBodies(q: Queryable, messages: readonly NewMessage[]): Promise<void> {
  const withBody = messages.filter((m) => m.body !== null);
  if (!withBody.length) return;
  const bodies = withBody.map((m) => m.body!) as unknown as string[];
  await q.run('INSERT INTO message_bodies (message_id, body) SELECT * FROM unnest($1::text[], $2::bytea[])', [withBody.map((m) => m.id), bodies]);
}

/** Writes a batch of accepted messages; per message, its queued recipients and when they are due. */
export async function recordMessages(q: Queryable, messages: readonly NewMessage[]): Promise<Array<Array<{ id: number; due: number }>>> {
  if (!messages.length) return [];
  const now = nowIso();
  const rowids = await insertMessageRows(q, messages, now);
  const due = await insertRecipientRows(q, messages, now);
  await insertBodies(q, messages);
  // The figure counts the intake decided its recipients start in, and each message in its status, as it was written.
  await moveCounts(
    q,
    messages.flatMap((m) => m.figures.map((f) => ({ rowid: rowids.get(m.id)!, teamId: m.teamId, createdAt: now, domainId: m.domainId, status: f.status, by: f.by }))),
    messages.map((m) => ({ teamId: m.teamId, createdAt: now, domainId: m.domainId, status: m.status, by: 1 })),
  );
  return messages.map((m) => due.get(m.id)!);
}
