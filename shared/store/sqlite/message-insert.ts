// Recording accepted messages in SQLite: a batch of messages (their credits already taken by the intake, in the
// same transaction: shared/intake/record.ts) written as message rows, recipients, bodies, the search index and
// their figure counts, in as few multi-row statements as the batch allows.
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import type { NewMessage } from '../message-log.js';
import { Int, rowDecoder, Text } from './decode.js';
import { chunksByParams } from './write-batch.js';
import { nowIso } from '../../time.js';
import { bumpKeyed } from './figure-counters.js';

const decodeInsertedMessage = rowDecoder('inserted message', Type.Object({ rowid: Int, id: Text }), (r) => r);
const decodeInsertedRecipient = rowDecoder('inserted recipient', Type.Object({ id: Int, message_id: Text, state: Text }), (r) => r);

/** The columns of a message every writer of the log fills the same way, and their values, in that order. */
export const LOGGED_COLUMNS =
  'id, team_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json, reply_to, message_id_header, size, has_attachments, headers_json';

type Logged = Omit<NewMessage, 'payerId' | 'recipients' | 'body' | 'cost' | 'error' | 'figures' | 'status'>;

export const loggedValues = (m: Logged): SqlValue[] => [
  m.id,
  m.teamId,
  m.domainId,
  m.sendingKeyId,
  m.source,
  m.envelopeFrom,
  m.fromEmail,
  m.fromName,
  m.subject,
  JSON.stringify(m.to),
  m.replyTo,
  m.messageIdHeader,
  m.size,
  +m.hasAttachments,
  JSON.stringify(m.headers),
];

/** The logged columns, then status, error, created_at and updated_at. */
const MESSAGE_COLUMNS = LOGGED_COLUMNS.split(',').length + 4;
const RECIPIENT_COLUMNS = 11;

async function insertMessageRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, number>> {
  const rowids = new Map<string, number>();
  for (const chunk of chunksByParams(messages, MESSAGE_COLUMNS)) {
    const rows = await q.all(
      `INSERT INTO messages (${LOGGED_COLUMNS}, status, error, created_at, updated_at)
       VALUES ${chunk.map(() => `(${Array(MESSAGE_COLUMNS).fill('?').join(', ')})`).join(', ')} RETURNING rowid, id`,
      chunk.flatMap((m) => [...loggedValues(m), m.status, m.error, now, now]),
    );
    for (const r of rows.map(decodeInsertedMessage)) rowids.set(r.id, r.rowid);
  }
  return rowids;
}

/** The queued recipients of each message, and when they are due (now). */
async function insertRecipientRows(q: Queryable, messages: readonly NewMessage[], now: string): Promise<Map<string, Array<{ id: number; due: number }>>> {
  const queuedAt = Date.now();
  const due = new Map<string, Array<{ id: number; due: number }>>(messages.map((m) => [m.id, []]));
  const rows = messages.flatMap((m) => m.recipients.map((r) => ({ messageId: m.id, teamId: m.teamId, r })));
  for (const chunk of chunksByParams(rows, RECIPIENT_COLUMNS)) {
    const inserted = await q.all(
      `INSERT INTO recipients (message_id, team_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} RETURNING id, message_id, state`,
      chunk.flatMap(({ messageId, teamId, r }) => [
        messageId,
        teamId,
        r.email,
        r.name,
        r.kind,
        r.domain,
        r.state,
        r.reason,
        r.state === 'queued' ? queuedAt : null,
        queuedAt,
        now,
      ]),
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

/** The bodies given (a message with nothing to send has none). */
async function insertBodies(q: Queryable, messages: readonly NewMessage[]): Promise<void> {
  const withBody = messages.flatMap((m) => (m.body ? [{ id: m.id, body: m.body }] : []));
  for (const chunk of chunksByParams(withBody, 2)) {
    await q.run(
      `INSERT INTO message_bodies (message_id, body) VALUES ${chunk.map(() => '(?, ?)').join(', ')}`,
      chunk.flatMap((m) => [m.id, m.body]),
    );
  }
}

/** Writes a batch of accepted messages; per message, its queued recipients and when they are due. */
export async function recordMessages(q: Queryable, messages: readonly NewMessage[]): Promise<Array<Array<{ id: number; due: number }>>> {
  if (!messages.length) return [];
  const now = nowIso();
  const rowids = await insertMessageRows(q, messages, now);
  const due = await insertRecipientRows(q, messages, now);
  await insertBodies(q, messages);
  await indexForSearch(q, rowids);
  // The figure counts the intake decided its recipients start in, under the message as it was written.
  await bumpKeyed(
    q,
    messages.flatMap((m) => m.figures.map((f) => ({ rowid: rowids.get(m.id)!, teamId: m.teamId, createdAt: now, domainId: m.domainId, status: f.status, by: f.by }))),
  );
  return messages.map((m) => due.get(m.id)!);
}
