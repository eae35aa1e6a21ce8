// Delivery results recorded: each moves its recipient only while the recipient is `sending` under the result's
// lease token (the condition of the move's own statement), and what moved takes the effects domain/outcome.ts
// names — the attempt kept, the domain counter, the refund of what was never sent, the hard-bounce mark, the
// suppression and the webhook event — and the message statuses follow, all in one transaction. Several callers'
// results share that transaction (the queue's batcher): a handful of statements for many deliveries.
import { effectsOf, outcomeOfAttempt, refundsCredit, type OutcomeEffects } from '../domain/outcome.js';
import type { MessageStatus } from '../domain/queue-state.js';
import type { LeasedMove, MovedRecipient, Transaction, UnitOfWork } from '../store/unit-of-work.js';
import type { AttemptResult, FinishOutcome, StaleResult } from '../store/queue.js';
import type { Applied, BounceInput } from '../store/feedback.js';
import { applyFeedback, countByMessage, countChanges, counterBumps, movedTo } from './effects.js';
import { refreshStatuses } from './message-status.js';

interface Move {
  result: AttemptResult;
  recipient: MovedRecipient;
  effects: OutcomeEffects;
}

/** A result's effects on a recipient being sent (the only state a result applies to); null when it names no move. */
function effectsOfResult(r: AttemptResult): OutcomeEffects | null {
  const effects = effectsOf(outcomeOfAttempt(r.to, r.hard), { state: 'sending', complained: false });
  return effects && effects.moveTo === r.to ? effects : null;
}

function leasedMove(r: AttemptResult, effects: OutcomeEffects): LeasedMove {
  return {
    id: r.recipientId,
    leaseToken: r.leaseToken,
    to: r.to,
    reply: r.reply,
    reason: r.to === 'sent' ? '' : r.reply,
    nextAttemptAt: r.to === 'deferred' ? (r.nextAttemptAt ?? Date.now()) : null,
    hardBounce: effects.feedback.hardBounce,
  };
}

/** The n-th result about a recipient goes in round n: two results about one recipient never share a statement. */
function rounds(results: readonly AttemptResult[]): AttemptResult[][] {
  const seen = new Map<number, number>();
  const out: AttemptResult[][] = [];
  for (const r of results) {
    const n = seen.get(r.recipientId) ?? 0;
    seen.set(r.recipientId, n + 1);
    (out[n] ??= []).push(r);
  }
  return out;
}

/**
 * Moves what the results' leases still hold. A lease moves once: after its first result moved the recipient
 * (it is no longer `sending`), a repeat of it is refused by the statement itself, as is a result whose token
 * another worker's claim replaced.
 */
async function moveLeased(tx: UnitOfWork, results: readonly AttemptResult[]): Promise<{ moves: Move[]; refused: AttemptResult[] }> {
  const moves: Move[] = [];
  const refused: AttemptResult[] = [];
  for (const round of rounds(results)) {
    const candidates: Array<{ result: AttemptResult; effects: OutcomeEffects }> = [];
    for (const result of round) {
      const effects = effectsOfResult(result);
      if (effects) candidates.push({ result, effects });
      else refused.push(result);
    }
    if (!candidates.length) continue;
    const moved = new Map((await tx.recipients.moveIfLeased(candidates.map((c) => leasedMove(c.result, c.effects)))).map((m) => [m.id, m]));
    for (const { result, effects } of candidates) {
      const recipient = moved.get(result.recipientId);
      if (recipient) moves.push({ result, recipient, effects });
      else refused.push(result);
    }
  }
  return { moves, refused };
}

/** The refused results with where their recipients' leases stand now, for the log. */
async function staleOf(tx: UnitOfWork, refused: readonly AttemptResult[]): Promise<StaleResult[]> {
  if (!refused.length) return [];
  const now = new Map((await tx.recipients.leasesOf([...new Set(refused.map((r) => r.recipientId))])).map((l) => [l.id, l]));
  return refused.map((result) => ({ result, currentToken: now.get(result.recipientId)?.leaseToken ?? null, currentState: now.get(result.recipientId)?.state ?? null }));
}

/** The bounces among the moves (every move with an event: bounces and expiries), with what each took. */
async function bouncesOf(tx: UnitOfWork, moves: readonly Move[]): Promise<Array<{ input: BounceInput; applied: Applied }>> {
  const withEvent = moves.filter((m) => m.effects.feedback.event !== null);
  const applied = await applyFeedback(
    tx,
    withEvent.map((m) => ({ recipient: m.recipient, feedback: m.effects.feedback, reason: m.result.reply })),
  );
  return withEvent.map(({ result, effects }, i) => ({
    input: { recipientId: result.recipientId, hard: effects.feedback.hardBounce ?? false, reason: result.reply, source: result.to === 'failed' ? 'expiry' : 'smtp' },
    applied: applied[i]!,
  }));
}

/** Several callers' results recorded in one transaction; each caller hears of its own bounces, refusals and finished messages. */
export async function finishBatches(tx: UnitOfWork, batches: ReadonlyArray<readonly AttemptResult[]>): Promise<FinishOutcome[]> {
  const { moves, refused } = await moveLeased(tx, batches.flat());
  await tx.recipients.addAttempts(
    moves.map(({ result: r }) => ({ recipientId: r.recipientId, mxHost: r.mxHost, ip: r.ip, outcome: r.to === 'sent' ? 'delivered' : r.to, reply: r.reply })),
  );
  // Every move left `sending` (the state its statement was conditional on).
  await countChanges(
    tx,
    moves.flatMap(({ result, recipient: r }) => movedTo(result.to, [{ messageId: r.messageId, teamId: r.teamId, from: 'sending', complained: r.complained }])),
  );
  const bumps = counterBumps(moves.map((m) => ({ domainId: m.recipient.domainId, count: m.effects.count })));
  if (bumps.length) await tx.counters.bump(bumps);
  const refunded = moves.filter((m) => refundsCredit(outcomeOfAttempt(m.result.to, m.result.hard))).map((m) => m.recipient);
  if (refunded.length) await tx.credits.refund(countByMessage(refunded));
  const bounces = await bouncesOf(tx, moves);
  const statuses = await refreshStatuses(tx, [...new Set(moves.map((m) => m.recipient.messageId))]);
  return splitByCaller(batches, { moves, refused: await staleOf(tx, refused), statuses, bounces });
}

/** One caller's results recorded in a transaction of their own (what the queue's batcher does for many). */
export async function finishAlone(transaction: Transaction, results: readonly AttemptResult[]): Promise<FinishOutcome> {
  const [outcome] = await transaction((tx) => finishBatches(tx, [results]));
  return outcome!;
}

interface BatchOutcome {
  moves: readonly Move[];
  refused: readonly StaleResult[];
  statuses: ReadonlyMap<string, MessageStatus>;
  bounces: ReadonlyArray<{ input: BounceInput; applied: Applied }>;
}

function splitByCaller(batches: ReadonlyArray<readonly AttemptResult[]>, o: BatchOutcome): FinishOutcome[] {
  const callerOf = new Map<AttemptResult, number>();
  batches.forEach((results, i) => results.forEach((r) => callerOf.set(r, i)));
  const outcomes: FinishOutcome[] = batches.map(() => ({ finished: [], bounces: [], refused: [] }));
  const moveOf = new Map<number, Move>(o.moves.map((m) => [m.result.recipientId, m]));
  // A finished message is told to one caller only, the first that moved one of its recipients.
  const told = new Set<string>();
  for (const move of o.moves) {
    const messageId = move.recipient.messageId;
    if (told.has(messageId) || o.statuses.get(messageId) === 'pending') continue;
    told.add(messageId);
    outcomes[callerOf.get(move.result)!]!.finished.push(messageId);
  }
  for (const b of o.bounces) outcomes[callerOf.get(moveOf.get(b.input.recipientId)!.result)!]!.bounces.push(b);
  for (const r of o.refused) outcomes[callerOf.get(r.result)!]!.refused.push(r);
  return outcomes;
}
