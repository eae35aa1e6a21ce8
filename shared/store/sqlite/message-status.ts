// A message's status and body, written as the queue module (shared/queue/message-status.ts) decided them from
// its recipients' states, inside the transaction that moved them. Row operations only: which status a message
// takes, and whether its body is kept for a requeue, are decided above.
import type { Queryable } from './sql.js';
import { Type } from '@sinclair/typebox';
import { nowIso } from '../../time.js';
import { groupBy } from '../../group-by.js';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import { RECIPIENT_STATES } from '../../domain/queue-state.js';
import type { FigureState } from '../../domain/figures.js';
import type { MessageStatusUpdate } from '../unit-of-work.js';

const marks = (n: number): string => Array.from({ length: n }, () => '?').join(',');
const decodeState = rowDecoder('recipient state', Type.Object({ message_id: Text, state: OneOf(RECIPIENT_STATES), complained: Int }), (r) => r);

/** The state of each message's recipients and whether each complained, with one read. */
export async function recipientStates(q: Queryable, messageIds: readonly string[]): Promise<Map<string, FigureState[]>> {
  const states = new Map<string, FigureState[]>(messageIds.map((id) => [id, []]));
  if (!messageIds.length) return states;
  const rows = await q.all(
    `SELECT message_id, state, complained_at IS NOT NULL AS complained FROM recipients WHERE message_id IN (${marks(messageIds.length)})`,
    messageIds,
  );
  for (const r of rows.map(decodeState)) states.get(r.message_id)?.push({ state: r.state, complained: r.complained !== 0 });
  return states;
}

/**
 * Sets the messages' statuses, with one write per distinct status (and sent_at rule), so a batch of deliveries
 * costs the writer a few statements rather than one per message. sent_at is set the first time `sent` is.
 */
export async function setStatuses(q: Queryable, updates: readonly MessageStatusUpdate[]): Promise<void> {
  const now = nowIso();
  for (const group of groupBy(updates, (u) => `${u.status} ${u.sent}`).values()) {
    await q.run(
      `UPDATE messages SET status = ?, updated_at = ?, sent_at = CASE WHEN sent_at IS NULL AND ? THEN ? ELSE sent_at END
       WHERE id IN (${marks(group.length)})`,
      [group[0]!.status, now, Number(group[0]!.sent), now, ...group.map((u) => u.id)],
    );
  }
}

export async function dropBodies(q: Queryable, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length) await q.run(`DELETE FROM message_bodies WHERE message_id IN (${marks(messageIds.length)})`, messageIds);
}

/** Marks the bodies kept since now, unless already marked: the requeue window runs from the first mark. */
export async function markKept(q: Queryable, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length) {
    await q.run(`UPDATE message_bodies SET kept_since = COALESCE(kept_since, ?) WHERE message_id IN (${marks(messageIds.length)})`, [nowIso(), ...messageIds]);
  }
}
