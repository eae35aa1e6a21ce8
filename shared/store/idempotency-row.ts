// A key's row as both engines store it (idempotency_replies), decoded into what a reservation found: in progress
// while it has no reply, completed once it has one (its body kept as the JSON text the interface answered).
import { Type } from '@sinclair/typebox';
import { Int, Nullable, rowDecoder, Text } from './decode.js';
import type { KeyReservation } from './idempotency.js';

const HeldRow = Type.Object({ request_hash: Text, reply_status: Nullable(Int), reply_body: Nullable(Text) });

export const decodeHeld = rowDecoder('idempotency reply', HeldRow, (r): Exclude<KeyReservation, { state: 'reserved' }> => {
  if (r.reply_status === null || r.reply_body === null) return { state: 'in_progress', requestHash: r.request_hash };
  return { state: 'completed', requestHash: r.request_hash, reply: { status: r.reply_status, body: JSON.parse(r.reply_body) as unknown } };
});
