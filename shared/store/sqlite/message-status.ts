// A message's status, re-derived from its recipients inside the transaction that moved them.
import type { Queryable } from './sql.js';
import { nowIso } from '../../time.js';
import { groupBy } from '../../group-by.js';
import { messageStatusOf, REQUEUEABLE, type MessageStatus, type RecipientState } from '../../domain/queue-state.js';

/** Re-derives a message's status from its recipients' states. */
export async function refreshStatus(q: Queryable, messageId: string): Promise<MessageStatus> {
  const statuses = await refreshStatuses(q, [messageId]);
  return statuses.get(messageId) ?? 'pending';
}

/**
 * Re-derives the statuses of several messages with one read and one write per distinct outcome, so a batch
 * of deliveries costs the writer a few statements rather than two per message. A message left with nothing
 * in the queue loses its body here, in the same transaction, whichever path finished it, unless a recipient of
 * it bounced or failed: that body is kept for an operator's requeue, marked with when (kept_since), and the
 * queue's sweep deletes it once the requeue window has passed (dropKeptBodies).
 */
export async function refreshStatuses(q: Queryable, messageIds: readonly string[]): Promise<Map<string, MessageStatus>> {
  const statuses = new Map<string, MessageStatus>();
  if (!messageIds.length) return statuses;
  const rows = await q.all<{ message_id: string; state: RecipientState }>(
    `SELECT message_id, state FROM recipients WHERE message_id IN (${messageIds.map(() => '?').join(',')})`,
    messageIds,
  );
  const statesOf = groupBy(rows, (r) => r.message_id);
  const derived = messageIds.map((id) => {
    const states = (statesOf.get(id) ?? []).map((r) => r.state);
    return { id, status: messageStatusOf(states), anySent: states.includes('sent'), requeueable: states.some((s) => REQUEUEABLE.includes(s)) };
  });
  for (const d of derived) statuses.set(d.id, d.status);
  // Messages that take the same status (and the same sent_at rule) are updated together.
  const now = nowIso();
  for (const group of groupBy(derived, (d) => `${d.status} ${d.anySent}`).values()) {
    await q.run(
      `UPDATE messages SET status = ?, updated_at = ?, sent_at = CASE WHEN sent_at IS NULL AND ? THEN ? ELSE sent_at END
       WHERE id IN (${group.map(() => '?').join(',')})`,
      [group[0]!.status, now, Number(group[0]!.anySent), now, ...group.map((d) => d.id)],
    );
  }
  const ended = derived.filter((d) => d.status !== 'pending');
  const finished = ended.filter((d) => !d.requeueable).map((d) => d.id);
  if (finished.length) await q.run(`DELETE FROM message_bodies WHERE message_id IN (${finished.map(() => '?').join(',')})`, finished);
  // Kept for requeue from the first time the message ended; a later report about it does not extend the window.
  const kept = ended.filter((d) => d.requeueable).map((d) => d.id);
  if (kept.length) await q.run(`UPDATE message_bodies SET kept_since = COALESCE(kept_since, ?) WHERE message_id IN (${kept.map(() => '?').join(',')})`, [now, ...kept]);
  return statuses;
}
