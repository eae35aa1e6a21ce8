// A message's status, re-derived from its recipients inside the transaction that moved them.
import type { Queryable } from './sql.js';
import { nowIso } from '../time.js';
import { messageStatusOf, type MessageStatus, type RecipientState } from '../queue-state.js';

/** Re-derives a message's status from its recipients' states. */
export async function refreshStatus(q: Queryable, messageId: string): Promise<MessageStatus> {
  const states = await q.all<{ state: RecipientState }>('SELECT state FROM recipients WHERE message_id = ?', [messageId]);
  const status = messageStatusOf(states.map((s) => s.state));
  const now = nowIso();
  await q.run(
    `UPDATE messages SET status = ?, updated_at = ?, sent_at = CASE WHEN sent_at IS NULL AND ? THEN ? ELSE sent_at END WHERE id = ?`,
    [status, now, +states.some((s) => s.state === 'sent'), now, messageId],
  );
  return status;
}
