// An operator's hold, release, purge and requeue, decided here and carried out through the unit of work: where a
// released recipient waits (domain/queue-state.ts), which recipients are refunded or reported (domain/outcome.ts),
// which may be sent again (the intake's rule, domain/screening.ts), who pays for a new attempt, and which figures
// and queue depths each move changes (domain/figures.ts). The moves themselves are conditional on the recipients'
// states in their statements, and each change commits with its audit entry.
import { effectsOf, refundsCredit } from '../domain/outcome.js';
import type { Transaction, UnitOfWork, RequeueCandidate, MovedDue } from '../store/unit-of-work.js';
import type { ChangedRecipient, DueAgain, PurgeOutcome, QueueAudit, QueueSelector, RequeueOutcome, SuppressedRecipient } from '../store/queue-control.js';
import { OPERATION_APPLIES_TO, releasedTo } from '../domain/queue-state.js';
import { screenAddress, type DisposableDomains, type Screening } from '../domain/screening.js';
import { groupBy } from '../group-by.js';
import { applyFeedback, countByMessage, countChanges, movedTo } from './effects.js';
import { refreshStatuses } from './message-status.js';

const byId = <T extends { id: number }>(list: T[]): T[] => list.sort((a, b) => a.id - b.id);

/** Holds the chosen waiting recipients, each only while it still waits in the state it is held from. */
export function hold(transaction: Transaction, selector: QueueSelector, now: number, audit: QueueAudit): Promise<ChangedRecipient[]> {
  return transaction(async (tx) => {
    const held = [];
    for (const from of OPERATION_APPLIES_TO.hold) held.push(...(await tx.queueControl.hold(selector, from, now)).map((r) => ({ ...r, from })));
    await countChanges(tx, movedTo('held', held));
    await tx.addAudit(audit(held.length));
    return byId(held.map(({ id, messageId }) => ({ id, messageId })));
  });
}

/** Releases the chosen held recipients, due at `now`: each waits again as it did before its hold. */
export function release(transaction: Transaction, selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]> {
  return transaction(async (tx) => {
    const released: DueAgain[] = [];
    for (const attempted of [false, true]) {
      const to = releasedTo(attempted);
      const moved = await tx.queueControl.release(selector, attempted, to, now);
      await countChanges(
        tx,
        movedTo(
          to,
          moved.map((r) => ({ ...r, from: 'held' as const })),
        ),
      );
      released.push(...moved.map(({ id, messageId, due }) => ({ id, messageId, due })));
    }
    await tx.addAudit(audit(released.length));
    return byId(released);
  });
}

/**
 * Ends the chosen recipients not being attempted as failed; as domain/outcome.ts decides a purge, their credits
 * go back and, with `notify`, each is reported as a soft bounce (a webhook event, never a suppression).
 */
export function purge(transaction: Transaction, selector: QueueSelector, reason: string, notify: boolean, audit: QueueAudit): Promise<PurgeOutcome> {
  const outcome = { kind: 'purged', notify } as const;
  // The recipients chosen wait or are held: the effects are those of moving one of them to failed.
  const effects = effectsOf(outcome, { state: 'held', complained: false });
  return transaction(async (tx) => {
    const purged = await tx.queueControl.fail(selector, reason);
    await countChanges(tx, movedTo('failed', purged));
    if (refundsCredit(outcome) && purged.length) await tx.credits.refund(countByMessage(purged));
    const feedback = effects?.feedback;
    const reported = feedback?.event ? purged : [];
    if (feedback?.hardBounce !== null && feedback?.hardBounce !== undefined && reported.length) {
      await tx.recipients.setHardBounce(
        reported.map((r) => r.id),
        feedback.hardBounce,
      );
    }
    const applied = feedback
      ? await applyFeedback(
          tx,
          reported.map((recipient) => ({ recipient, feedback, reason })),
        )
      : [];
    const bounces = applied.map((a, i) => ({ input: { recipientId: reported[i]!.id, hard: false, reason, source: 'purge' as const }, applied: a }));
    const statuses = await refreshStatuses(tx, [...new Set(purged.map((p) => p.messageId))]);
    await tx.addAudit(audit(purged.length));
    return {
      purged: purged.map(({ id, messageId }) => ({ id, messageId })),
      finished: [...statuses].filter(([, status]) => status !== 'pending').map(([id]) => id),
      bounces,
    };
  });
}

/** The balance of the payer that could not pay for a requeue: the transaction is undone. */
class CannotPay extends Error {
  constructor(readonly balance: number) {
    super('the payer cannot pay for the requeue');
  }
}

/** Each candidate screened as the intake screens a new recipient, the suppression list read in the transaction. */
async function screened(tx: UnitOfWork, chosen: readonly RequeueCandidate[], disposable: DisposableDomains): Promise<Map<RequeueCandidate, Screening>> {
  const out = new Map<RequeueCandidate, Screening>();
  for (const [teamId, ofTeam] of groupBy(chosen, (r) => r.teamId)) {
    const listed = await tx.suppressions.listedAmong(
      teamId,
      ofTeam.map((r) => r.email.toLowerCase()),
    );
    for (const r of ofTeam) out.set(r, screenAddress(r.domain, listed.has(r.email.toLowerCase()), disposable));
  }
  return out;
}

/** Each message's requeued recipients paid for again, by the payer that paid for the message (none: it was free). */
async function payAgain(tx: UnitOfWork, requeued: readonly MovedDue[]): Promise<void> {
  const counts = countByMessage(requeued);
  const payers = await tx.credits.payersOf([...counts.keys()]);
  for (const [payerId, messages] of groupBy([...payers], ([, payer]) => payer)) {
    const owed = messages.map(([messageId]) => ({ messageId, cost: counts.get(messageId)!, sendingKeyId: null }));
    if (!(await tx.credits.debitSends(payerId, owed))) throw new CannotPay(await tx.credits.balanceOf(payerId));
  }
}

const named = (rs: readonly RequeueCandidate[]): SuppressedRecipient[] => rs.map(({ id, messageId, email }) => ({ id, messageId, email }));

/**
 * Sends the chosen bounced or failed recipients again, due at `now`, while their message's body is kept: only
 * those the intake's rule lets through (not disposable, not suppressed), each paid for again; when a payer cannot
 * pay, nothing is changed.
 */
export async function requeue(transaction: Transaction, selector: QueueSelector, now: number, audit: QueueAudit, disposable: DisposableDomains): Promise<RequeueOutcome> {
  try {
    return await transaction(async (tx) => {
      const chosen = await tx.queueControl.requeueCandidates(selector);
      const screening = await screened(tx, chosen, disposable);
      const sendable = chosen.filter((r) => screening.get(r) === 'sendable');
      const requeued = sendable.length
        ? await tx.queueControl.requeue(
            sendable.map((r) => r.id),
            now,
          )
        : [];
      await countChanges(tx, movedTo('queued', requeued));
      await payAgain(tx, requeued);
      const messageIds = [...new Set(requeued.map((r) => r.messageId))];
      await refreshStatuses(tx, messageIds);
      await tx.queueControl.unmarkKept(messageIds);
      await tx.addAudit(audit(requeued.length));
      return {
        ok: true,
        requeued: requeued.map(({ id, messageId, due }) => ({ id, messageId, due })),
        suppressed: named(chosen.filter((r) => screening.get(r) === 'suppressed')),
        disposable: named(chosen.filter((r) => screening.get(r) === 'disposable')),
      };
    });
  } catch (err) {
    if (err instanceof CannotPay) return { ok: false, reason: 'insufficient_credits', balance: err.balance };
    throw err;
  }
}
