// The effects of a recipient's outcome, carried out through the unit of work: domain/outcome.ts decides them
// (the move, the domain counter, the hard-bounce mark, the suppression, the webhook event, the refund), this
// module asks the store's row operations for each, in one transaction. A bounce or complaint report (DSN, ARF)
// comes through recordBounce / recordComplaint; delivery results (finish.ts) and operators' purges share applyFeedback.
import { effectsOf, type DomainCounter, type FeedbackEffects, type RecipientOutcome } from '../domain/outcome.js';
import type { CounterBump, MovedRecipient, Transaction, UnitOfWork } from '../store/unit-of-work.js';
import { depthBumps, figureBumps, type FigureState } from '../domain/figures.js';
import type { RecipientState } from '../domain/queue-state.js';
import type { Applied, BounceInput, ComplaintInput } from '../store/feedback.js';
import { refreshStatuses } from './message-status.js';

export type { Applied, BounceInput, ComplaintInput } from '../store/feedback.js';

/** A recipient an outcome affected, with the feedback part of its effects and the reason it carries. */
export interface Affected {
  recipient: MovedRecipient;
  feedback: FeedbackEffects;
  reason: string;
}

/**
 * The feedback part of outcomes, the hard-bounce mark aside (it travels with the move): each suppression the
 * effects name, and each webhook event (a repeated one is not added). Answers what each recipient took, in order.
 */
export async function applyFeedback(tx: UnitOfWork, affected: readonly Affected[]): Promise<Applied[]> {
  const suppressed = affected.flatMap(({ recipient: r, feedback, reason }) =>
    feedback.suppress ? [{ teamId: r.teamId, email: r.email, status: feedback.suppress, reason, messageId: r.messageId }] : [],
  );
  if (suppressed.length) await tx.suppressions.upsert(suppressed);
  const withEvent = affected.filter((a) => a.feedback.event !== null);
  const eventIds = withEvent.length
    ? await tx.outbox.add(
        withEvent.map(({ recipient: r, feedback, reason }) => ({
          teamId: r.teamId,
          type: feedback.event!.type,
          messageId: r.messageId,
          recipientId: r.id,
          email: r.email,
          isHardBounce: feedback.event!.type === 'bounced' ? feedback.event!.hard : null,
          reason,
        })),
      )
    : [];
  const eventOf = new Map(withEvent.map((a, i) => [a, eventIds[i] ?? null]));
  return affected.map((a) => ({
    teamId: a.recipient.teamId,
    messageId: a.recipient.messageId,
    email: a.recipient.email,
    eventId: eventOf.get(a) ?? null,
    suppressed: a.feedback.suppress !== null,
  }));
}

/** The domain counters outcomes raise, one bump per domain and counter (system mail has no domain and counts nowhere). */
export function counterBumps(counted: ReadonlyArray<{ domainId: string | null; count: DomainCounter | null }>): CounterBump[] {
  const bumps = new Map<string, CounterBump>();
  for (const { domainId, count } of counted) {
    if (domainId === null || count === null) continue;
    const key = `${count} ${domainId}`;
    const bump = bumps.get(key) ?? { domainId, counter: count, by: 0 };
    bump.by++;
    bumps.set(key, bump);
  }
  return [...bumps.values()];
}

/** A team's recipient leaving one figure state for another (domain/figures.ts decides which counts that moves). */
export interface FigureChange {
  messageId: string;
  teamId: number;
  from: FigureState;
  to: FigureState;
}

/** Where a moved recipient was and is: its message, its team, the state it left and its complaint mark. */
export interface MovedFromState {
  messageId: string;
  teamId: number;
  from: RecipientState;
  complained: boolean;
}

/** Moves the figure counts and the queue depths the changes move, if any. */
export async function countChanges(tx: UnitOfWork, changes: readonly FigureChange[]): Promise<void> {
  const figures = figureBumps(changes);
  if (figures.length) await tx.counters.bumpFigures(figures);
  const depths = depthBumps(changes.map((c) => ({ teamId: c.teamId, from: c.from.state, to: c.to.state })));
  if (depths.length) await tx.counters.bumpDepths(depths);
}

/** Recipients moved to `to` from the states (and complaint marks) they were in, as figure changes. */
export const movedTo = (to: RecipientState, moved: readonly MovedFromState[]): FigureChange[] =>
  moved.map((m) => ({ messageId: m.messageId, teamId: m.teamId, from: { state: m.from, complained: m.complained }, to: { state: to, complained: m.complained } }));

/** How many of `recipients` each message has. */
export function countByMessage(recipients: ReadonlyArray<{ messageId: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of recipients) counts.set(r.messageId, (counts.get(r.messageId) ?? 0) + 1);
  return counts;
}

/**
 * Applies a report's outcome to one recipient as domain/outcome.ts decides it for the state it is found in; null
 * when it does not apply. The move is conditional on that state, so a writer that moved it meanwhile wins and
 * the report changes nothing; a complaint counts only for the call that marks it.
 */
async function applyReport(tx: UnitOfWork, recipientId: number, outcome: RecipientOutcome, reason: string): Promise<Applied | null> {
  const r = await tx.recipients.find(recipientId);
  if (!r) return null;
  const effects = effectsOf(outcome, { state: r.state, complained: r.complained });
  if (!effects) return null;
  const figures: FigureChange[] = [];
  if (effects.moveTo) {
    const moved = await tx.recipients.moveIfIn(r.id, r.state, effects.moveTo, effects.moveTo === 'bounced' ? reason : null);
    if (!moved) return null;
    figures.push(...movedTo(effects.moveTo, [{ messageId: r.messageId, teamId: r.teamId, from: r.state, complained: moved.complained }]));
  }
  let counts = true;
  if (effects.count === 'complained') {
    const markedIn = await tx.recipients.markComplained(r.id);
    counts = markedIn !== undefined;
    if (markedIn) figures.push({ messageId: r.messageId, teamId: r.teamId, from: { state: markedIn, complained: false }, to: { state: markedIn, complained: true } });
  }
  await countChanges(tx, figures);
  if (counts) await tx.counters.bump(counterBumps([{ domainId: r.domainId, count: effects.count }]));
  if (effects.feedback.hardBounce !== null) await tx.recipients.setHardBounce([r.id], effects.feedback.hardBounce);
  const [applied] = await applyFeedback(tx, [{ recipient: r, feedback: effects.feedback, reason }]);
  await refreshStatuses(tx, [r.messageId]);
  return applied!;
}

/** The outcome a bounce stands for, by where it comes from. */
function outcomeOfBounce(input: BounceInput): RecipientOutcome {
  if (input.source === 'expiry') return { kind: 'expired' };
  if (input.source === 'purge') return { kind: 'purged', notify: true };
  return { kind: 'bounced', hard: input.hard, source: input.source };
}

/** Applies a bounce in one transaction; null when it changes nothing (unknown recipient, one still in flight). */
export function recordBounce(transaction: Transaction, input: BounceInput): Promise<Applied | null> {
  return transaction((tx) => applyReport(tx, input.recipientId, outcomeOfBounce(input), input.reason));
}

/** Applies a complaint in one transaction; null for an unknown recipient. */
export function recordComplaint(transaction: Transaction, input: ComplaintInput): Promise<Applied | null> {
  return transaction((tx) => applyReport(tx, input.recipientId, { kind: 'complained' }, input.reason));
}
