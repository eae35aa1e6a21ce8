// Bounce and complaint effects, applied inside a caller's transaction: the recipient's state, the
// suppression, the domain counters, the webhook event and the message status move together.
import { Type } from '@sinclair/typebox';
import type { Queryable } from './sql.js';
import { SuppressionStore } from './suppressions.js';
import { refreshStatus } from './message-status.js';
import { nowIso } from '../../shared/time.js';
import { canMove, RECIPIENT_STATES } from '../../domain/queue-state.js';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import type { Applied, BounceInput, ComplaintInput } from '../feedback.js';

export type { Applied, BounceInput, BounceSource, ComplaintInput } from '../feedback.js';

const decodeContext = rowDecoder(
  'recipient',
  Type.Object({
    id: Int,
    state: OneOf(RECIPIENT_STATES),
    email: Text,
    message_id: Text,
    account_id: Int,
    domain_id: Nullable(Text),
    complained_at: Nullable(Text),
  }),
  (r) => r,
);

type RecipientContext = ReturnType<typeof decodeContext>;

async function context(q: Queryable, recipientId: number): Promise<RecipientContext | undefined> {
  const row = await q.get(
    `SELECT r.id, r.state, r.email, r.message_id, r.complained_at, m.account_id, m.domain_id
     FROM recipients r JOIN messages m ON m.id = r.message_id WHERE r.id = ?`,
    [recipientId],
  );
  return row && decodeContext(row);
}

async function addEvent(q: Queryable, r: RecipientContext, type: 'bounced' | 'complaint', hard: boolean | null, reason: string): Promise<number | null> {
  const res = await q.run(
    `INSERT OR IGNORE INTO events (account_id, type, message_id, recipient_id, email, is_hard_bounce, reason, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [r.account_id, type, r.message_id, r.id, r.email, hard === null ? null : +hard, reason, nowIso()],
  );
  return res.changes ? res.lastId : null;
}

/** A bounce reported after a 250 (a DSN) moves the recipient from sent to bounced, and counts once. */
async function bounceAfterSent(q: Queryable, r: RecipientContext, reason: string): Promise<void> {
  if (!canMove(r.state, 'bounced') || r.state !== 'sent') return;
  await q.run(`UPDATE recipients SET state = 'bounced', reason = ?, updated_at = ? WHERE id = ?`, [reason, nowIso(), r.id]);
  await q.run('UPDATE domains SET total_bounced = total_bounced + 1 WHERE id = ?', [r.domain_id]);
}

export async function applyBounce(q: Queryable, input: BounceInput): Promise<Applied | null> {
  const r = await context(q, input.recipientId);
  if (!r) return null;
  if (input.source === 'report') await bounceAfterSent(q, r, input.reason);
  const after = await context(q, input.recipientId);
  // An expired recipient never reached the bounced state; a report about one still in flight is ignored.
  if (input.source !== 'expiry' && after?.state !== 'bounced') return null;
  await q.run('UPDATE recipients SET hard_bounce = ? WHERE id = ?', [+input.hard, r.id]);
  if (input.hard) await SuppressionStore.upsert(q, r.account_id, { email: r.email, status: 'bounced', reason: input.reason, messageId: r.message_id });
  const eventId = await addEvent(q, r, 'bounced', input.hard, input.reason);
  await refreshStatus(q, r.message_id);
  return { accountId: r.account_id, messageId: r.message_id, email: r.email, eventId, suppressed: input.hard };
}

export async function applyComplaint(q: Queryable, input: ComplaintInput): Promise<Applied | null> {
  const r = await context(q, input.recipientId);
  if (!r) return null;
  if (r.complained_at === null) {
    // A delivered recipient moves to complained; one that bounced since keeps its state but still counts.
    const state = canMove(r.state, 'complained') ? 'complained' : r.state;
    await q.run('UPDATE recipients SET state = ?, complained_at = ?, updated_at = ? WHERE id = ?', [state, nowIso(), nowIso(), r.id]);
    await q.run('UPDATE domains SET total_complained = total_complained + 1 WHERE id = ?', [r.domain_id]);
  }
  await SuppressionStore.upsert(q, r.account_id, { email: r.email, status: 'complained', reason: input.reason, messageId: r.message_id });
  const eventId = await addEvent(q, r, 'complaint', null, input.reason);
  await refreshStatus(q, r.message_id);
  return { accountId: r.account_id, messageId: r.message_id, email: r.email, eventId, suppressed: true };
}
