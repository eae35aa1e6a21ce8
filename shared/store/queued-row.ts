// A queued recipient's rows as an operator reads them in both engines (the same columns in SQLite and
// PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { RECIPIENT_STATES } from '../domain/queue-state.js';
import type { DestinationSummary, DueAgain, QueuedRecipient } from './queue-control.js';

export const decodeQueued = rowDecoder(
  'queued recipient',
  Type.Object({
    id: Int,
    message_id: Text,
    team_id: Int,
    email: Text,
    domain: Text,
    state: OneOf(RECIPIENT_STATES),
    attempts: Int,
    next_attempt_at: Nullable(Int),
    last_reply: Nullable(Text),
    queued_at: Int,
    held_at: Nullable(Int),
  }),
  (r): QueuedRecipient => ({
    id: r.id,
    messageId: r.message_id,
    teamId: r.team_id,
    email: r.email,
    domain: r.domain,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastReply: r.last_reply,
    queuedAt: r.queued_at,
    heldAt: r.held_at,
  }),
);

export const decodeDestination = rowDecoder(
  'destination summary',
  Type.Object({ domain: Text, total: Int, queued: Int, sending: Int, deferred: Int, held: Int, oldest: Int }),
  (r): Omit<DestinationSummary, 'lastError'> => ({
    domain: r.domain,
    total: r.total,
    queued: r.queued,
    sending: r.sending,
    deferred: r.deferred,
    held: r.held,
    oldestQueuedAt: r.oldest,
  }),
);

export const decodeLastError = rowDecoder('last error', Type.Object({ domain: Text, last_reply: Text }), (r) => r);

export const decodeDue = rowDecoder('due recipient', Type.Object({ id: Int, message_id: Text, due: Int }), (r): DueAgain => ({
  id: r.id,
  messageId: r.message_id,
  due: r.due,
}));
