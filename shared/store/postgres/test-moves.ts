// The test support's moves of messages and recipients on PostgreSQL (test-support.ts): a message moved in time and
// a recipient put in a state without a delivery take their counters along, as the product's writes move them. For
// tests only; nothing in the product imports it.
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { MESSAGE_STATUSES, RECIPIENT_STATES, type RecipientState } from '../../domain/queue-state.js';
import { depthBumps, figureBumps, figureStatusesOf } from '../../domain/figures.js';
import { searchStatuses } from './log-listing.js';
import { bumpFigures, writeCounts, type KeyedFigureBump } from './figure-counters.js';
import { PgUnitOfWork } from './unit-of-work.js';

const decodeMessage = rowDecoder(
  'message',
  Type.Object({ rowid: Int, team_id: Int, created_at: Text, domain_id: Nullable(Text), status: OneOf(MESSAGE_STATUSES) }),
  (r) => r,
);
const decodeCount = rowDecoder('message status count', Type.Object({ status: OneOf(MESSAGE_STATUSES), n: Int }), (r) => r);
const decodeRecipient = rowDecoder('recipient', Type.Object({ message_id: Text, team_id: Int, state: OneOf(RECIPIENT_STATES), complained: Int }), (r) => r);

/** A message moved in time takes its recipients' figure counts (message_statuses holds them, by status) and its own count along. */
export async function backdateMessage(q: Queryable, id: string, createdAt: string): Promise<void> {
  const row = await q.get('SELECT rowid, team_id, created_at, domain_id, status FROM messages WHERE id = $1 FOR UPDATE', [id]);
  if (!row) return;
  const m = decodeMessage(row);
  const counts = (await q.all('SELECT status, n FROM message_statuses WHERE message_rowid = $1', [m.rowid])).map(decodeCount);
  const at = (when: string, sign: number): KeyedFigureBump[] =>
    counts.map((c) => ({ rowid: m.rowid, teamId: m.team_id, createdAt: when, domainId: m.domain_id, status: c.status, by: sign * c.n }));
  const counted = (when: string, by: number) => ({ teamId: m.team_id, createdAt: when, domainId: m.domain_id, status: m.status, by });
  await writeCounts(q, at(m.created_at, -1), [counted(m.created_at, -1)]);
  await q.run('UPDATE messages SET created_at = $1 WHERE id = $2', [createdAt, id]);
  await writeCounts(q, at(createdAt, 1), [counted(createdAt, 1)]);
  await q.run('UPDATE message_statuses SET created_at = $1 WHERE message_rowid = $2', [createdAt, m.rowid]);
}

/** Forces a recipient's state (and complaint mark) with `set` ($1…), moving its figure counts and queue depth as the queue's writes do. */
export async function forceRecipient(
  q: Queryable,
  recipientId: number,
  state: RecipientState,
  complained: boolean | null,
  set: string,
  params: SqlValue[],
): Promise<void> {
  const row = await q.get('SELECT message_id, team_id, state, (complained_at IS NOT NULL)::int AS complained FROM recipients WHERE id = $1 FOR UPDATE', [recipientId]);
  if (!row) return;
  const was = decodeRecipient(row);
  await q.run(`UPDATE recipients SET ${set} WHERE id = $${params.length + 1}`, [...params, recipientId]);
  const from = { state: was.state, complained: was.complained !== 0 };
  await bumpFigures(q, figureBumps([{ messageId: was.message_id, from, to: { state, complained: complained ?? from.complained } }]));
  await recountSearchStatuses(q, was.message_id);
  await new PgUnitOfWork(q).counters.bumpDepths(depthBumps([{ teamId: was.team_id, from: was.state, to: state }]));
}

/** The statuses the message's recipients count in, written again for its search column, as the queue's status updates write them. */
async function recountSearchStatuses(q: Queryable, messageId: string): Promise<void> {
  const rows = await q.all('SELECT message_id, team_id, state, (complained_at IS NOT NULL)::int AS complained FROM recipients WHERE message_id = $1', [messageId]);
  const recipients = rows.map(decodeRecipient).map((r) => ({ state: r.state, complained: r.complained !== 0 }));
  await q.run('UPDATE messages SET search_statuses = $1 WHERE id = $2', [searchStatuses(figureStatusesOf(recipients)), messageId]);
}
