// A message's rows as both engines store them (messages, recipients, delivery_attempts: the same columns in SQLite
// and PostgreSQL), decoded into the message log's domain values.
import { Type, type Static } from '@sinclair/typebox';
import { MESSAGE_STATUSES, RECIPIENT_STATES } from '../domain/queue-state.js';
import {
  ATTEMPT_OUTCOMES,
  MESSAGE_SOURCES,
  RECIPIENT_KINDS,
  type DeliveryAttempt,
  type LoggedRecipient,
  type MessageLogDetail,
  type MessageLogEntry,
  type NumberedLogEntry,
} from '../domain/message-log.js';
import { Flag, Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';

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

/** A listed message with its number: SQLite's rowid, kept stable (see docs/decisions.md); on PostgreSQL an identity column standing for it. */
export const decodeEntry = rowDecoder('message', Type.Composite([MessageRow, Type.Object({ rowid: Int })]), (r): NumberedLogEntry => ({ ...toEntry(r), logId: r.rowid }));

/** A listed message leaves its headers unread: no list shows them, and parsing them for a page of rows was most of its decoding. */
export const decodeDetail = rowDecoder('message', MessageRow, (r): MessageLogDetail => ({ ...toEntry(r), headers: decodeHeaders(r.headers_json) }));

export const decodeRecipient = rowDecoder(
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

export const decodeAttempt = rowDecoder(
  'delivery attempt',
  Type.Object({ recipient_id: Int, at: Text, mx_host: Nullable(Text), ip: Nullable(Text), outcome: OneOf(ATTEMPT_OUTCOMES), reply: Text }),
  (r): DeliveryAttempt => ({ recipientId: r.recipient_id, at: r.at, mxHost: r.mx_host, ip: r.ip, outcome: r.outcome, reply: r.reply }),
);

export const decodeBody = rowDecoder('message body', Type.Object({ body: Type.Uint8Array() }), (r) => Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
export const decodeRecipientCount = rowDecoder('recipient count', Type.Object({ message_id: Text, n: Int }), (r) => [r.message_id, r.n] as const);
export const decodeStateCount = rowDecoder('state count', Type.Object({ state: Text, n: Int }), (r) => [r.state, r.n] as const);
