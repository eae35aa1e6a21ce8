// Applies the effects domain/outcome.ts decides, inside a caller's transaction: the recipient's state, the
// domain counter, the hard-bounce mark, the suppression, the webhook event and the message status move together.
import { Type } from '@sinclair/typebox';
import type { Queryable } from './sql.js';
import { SuppressionStore } from './suppressions.js';
import { refreshStatus } from './message-status.js';
import { nowIso } from '../../time.js';
import { RECIPIENT_STATES } from '../../domain/queue-state.js';
import { effectsOf, type DomainCounter, type FeedbackEffects, type OutcomeEffects, type RecipientOutcome } from '../../domain/outcome.js';
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
    team_id: Int,
    domain_id: Nullable(Text),
    complained_at: Nullable(Text),
  }),
  (r) => r,
);

type RecipientContext = ReturnType<typeof decodeContext>;

async function context(q: Queryable, recipientId: number): Promise<RecipientContext | undefined> {
  const row = await q.get(
    `SELECT r.id, r.state, r.email, r.message_id, r.complained_at, m.team_id, m.domain_id
     FROM recipients r JOIN messages m ON m.id = r.message_id WHERE r.id = ?`,
    [recipientId],
  );
  return row && decodeContext(row);
}

async function addEvent(q: Queryable, r: RecipientContext, type: 'bounced' | 'complaint', hard: boolean | null, reason: string): Promise<number | null> {
  const res = await q.run(
    `INSERT OR IGNORE INTO events (team_id, type, message_id, recipient_id, email, is_hard_bounce, reason, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [r.team_id, type, r.message_id, r.id, r.email, hard === null ? null : +hard, reason, nowIso()],
  );
  return res.changes ? res.lastId : null;
}

const COUNTER_COLUMNS: Readonly<Record<DomainCounter, string>> = { sent: 'total_sent', bounced: 'total_bounced', complained: 'total_complained' };

/** The state move and the counter of an outcome (report path: one recipient at a time). */
async function applyMove(q: Queryable, r: RecipientContext, effects: OutcomeEffects, reason: string): Promise<void> {
  const now = nowIso();
  if (effects.moveTo === 'bounced') await q.run('UPDATE recipients SET state = ?, reason = ?, updated_at = ? WHERE id = ?', [effects.moveTo, reason, now, r.id]);
  else if (effects.moveTo) await q.run('UPDATE recipients SET state = ?, updated_at = ? WHERE id = ?', [effects.moveTo, now, r.id]);
  if (effects.count === 'complained') await q.run('UPDATE recipients SET complained_at = ?, updated_at = ? WHERE id = ?', [now, now, r.id]);
  if (effects.count && r.domain_id !== null) {
    const column = COUNTER_COLUMNS[effects.count];
    await q.run(`UPDATE domains SET ${column} = ${column} + 1 WHERE id = ?`, [r.domain_id]);
  }
}

/** The feedback part of an outcome: the hard-bounce mark, the suppression, the webhook event; then the message's status. */
async function applyFeedback(q: Queryable, r: RecipientContext, feedback: FeedbackEffects, reason: string): Promise<Applied> {
  if (feedback.hardBounce !== null) await q.run('UPDATE recipients SET hard_bounce = ? WHERE id = ?', [+feedback.hardBounce, r.id]);
  if (feedback.suppress) await SuppressionStore.upsert(q, r.team_id, { email: r.email, status: feedback.suppress, reason, messageId: r.message_id });
  const event = feedback.event;
  const eventId = event ? await addEvent(q, r, event.type, event.type === 'bounced' ? event.hard : null, reason) : null;
  await refreshStatus(q, r.message_id);
  return { teamId: r.team_id, messageId: r.message_id, email: r.email, eventId, suppressed: feedback.suppress !== null };
}

/** Applies an outcome to one recipient as domain/outcome.ts decides it; null when it does not apply. */
export async function applyOutcome(q: Queryable, recipientId: number, outcome: RecipientOutcome, reason: string): Promise<Applied | null> {
  const r = await context(q, recipientId);
  if (!r) return null;
  const effects = effectsOf(outcome, { state: r.state, complained: r.complained_at !== null });
  if (!effects) return null;
  await applyMove(q, r, effects, reason);
  return applyFeedback(q, r, effects.feedback, reason);
}

/** The feedback part alone, for a recipient whose move the delivery batch already wrote. */
export async function applyFeedbackAfterMove(q: Queryable, recipientId: number, feedback: FeedbackEffects, reason: string): Promise<Applied | null> {
  const r = await context(q, recipientId);
  return r ? applyFeedback(q, r, feedback, reason) : null;
}

export function applyBounce(q: Queryable, input: BounceInput): Promise<Applied | null> {
  const outcome: RecipientOutcome =
    input.source === 'expiry'
      ? { kind: 'expired' }
      : input.source === 'purge'
        ? { kind: 'purged', notify: true }
        : { kind: 'bounced', hard: input.hard, source: input.source };
  return applyOutcome(q, input.recipientId, outcome, input.reason);
}

export function applyComplaint(q: Queryable, input: ComplaintInput): Promise<Applied | null> {
  return applyOutcome(q, input.recipientId, { kind: 'complained' }, input.reason);
}
