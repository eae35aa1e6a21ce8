// A message's status and body on PostgreSQL, written as the queue module (shared/queue/message-status.ts) decided
// them from its recipients' states, inside the transaction that moved them. Row operations only: which status a
// message takes, and whether its body is kept for a requeue, are decided above.
import { Type } from '@sinclair/typebox';
import type { Queryable } from './sql.js';
import { nowIso } from '../../time.js';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { MESSAGE_STATUSES, RECIPIENT_STATES } from '../../domain/queue-state.js';
import type { FigureState } from '../../domain/figures.js';
import type { MessageStatusUpdate } from '../unit-of-work.js';
import { moveCounts } from './figure-counters.js';
import { searchStatuses } from './log-listing.js';

const decodeState = rowDecoder('recipient state', Type.Object({ message_id: Text, state: OneOf(RECIPIENT_STATES), complained: Int }), (r) => r);
const decodeChanged = rowDecoder(
  'changed message status',
  Type.Object({ team_id: Int, created_at: Text, domain_id: Nullable(Text), was: OneOf(MESSAGE_STATUSES), status: OneOf(MESSAGE_STATUSES) }),
  (r) => r,
);

/**
 * The states of each message's recipients. The messages' rows are locked first (in id order, so two writers never
 * wait on each other in a cycle), and the states read by a second statement: under READ COMMITTED it sees every
 * recipient move committed before the lock was granted. Two workers finishing recipients of one message at the same
 * moment therefore derive its status one after the other, the second from what the first wrote; without the lock
 * each would read the other's recipient as still in flight and leave the message pending.
 */
export async function recipientStates(q: Queryable, messageIds: readonly string[]): Promise<Map<string, FigureState[]>> {
  const states = new Map<string, FigureState[]>(messageIds.map((id) => [id, []]));
  if (!messageIds.length) return states;
  const ids = [...new Set(messageIds)];
  await q.run('SELECT id FROM messages WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
  const rows = await q.all('SELECT message_id, state, (complained_at IS NOT NULL)::int AS complained FROM recipients WHERE message_id = ANY($1::text[])', [ids]);
  for (const r of rows.map(decodeState)) states.get(r.message_id)?.push({ state: r.state, complained: r.complained !== 0 });
  return states;
}

/**
 * Sets the messages' statuses with one statement for the batch, and moves the message counters from each changed
 * message's former status (locked and read by the same statement, so no other writer changes it in between) to its new one.
 * sent_at is set the first time `sent` is. The statuses its recipients count in go to search_statuses, which the
 * search column's status lexemes are generated from (migrations.ts), in the same row write.
 */
export async function setStatuses(q: Queryable, updates: readonly MessageStatusUpdate[]): Promise<void> {
  if (!updates.length) return;
  const last = [...new Map(updates.map((u) => [u.id, u])).values()];
  const rows = await q.all(
    `WITH v AS (SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[]) AS v(id, status, sent, counted)),
       old AS MATERIALIZED (SELECT m.id, m.status FROM messages m WHERE m.id = ANY($2::text[]) ORDER BY m.id FOR UPDATE)
     UPDATE messages m SET status = v.status, updated_at = $1, sent_at = CASE WHEN m.sent_at IS NULL AND v.sent = 1 THEN $1 ELSE m.sent_at END,
       search_statuses = v.counted
     FROM v JOIN old ON old.id = v.id
     WHERE m.id = v.id
     RETURNING m.team_id, m.created_at, m.domain_id, old.status AS was, m.status`,
    [nowIso(), last.map((u) => u.id), last.map((u) => u.status), last.map((u) => +u.sent), last.map((u) => searchStatuses(u.counted))],
  );
  const changed = rows.map(decodeChanged).filter((r) => r.was !== r.status);
  const at = (r: (typeof changed)[number]) => ({ teamId: r.team_id, createdAt: r.created_at, domainId: r.domain_id });
  await moveCounts(
    q,
    [],
    changed.flatMap((r) => [
      { ...at(r), status: r.was, by: -1 },
      { ...at(r), status: r.status, by: 1 },
    ]),
  );
}

export async function dropBodies(q: Queryable, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length) await q.run('DELETE FROM message_bodies WHERE message_id = ANY($1::text[])', [messageIds]);
}

/** Marks the bodies kept since now, unless already marked: the requeue window runs from the first mark. */
export async function markKept(q: Queryable, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length) await q.run('UPDATE message_bodies SET kept_since = COALESCE(kept_since, $1) WHERE message_id = ANY($2::text[])', [nowIso(), messageIds]);
}
