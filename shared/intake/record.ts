// Recording accepted messages: the intake's acknowledgement point. Messages accepted together are recorded
// together (a Batcher over the store's unit of work: one transaction, on SQLite one commit and one fsync shared
// with other writers). In that transaction each payer pays for its messages (one debit for all of them when it
// can, else one by one in order, so that it is always the later ones that are refused), then the paid messages are
// written (the body only of those with something to send), and the queue depths their recipients enter are moved
// (domain/figures.ts).
import type { InsertOutcome, NewMessage } from '../store/message-log.js';
import type { Transaction, UnitOfWork } from '../store/unit-of-work.js';
import { depthBumps } from '../domain/figures.js';
import { groupBy } from '../group-by.js';
import { Batcher } from '../write-batcher.js';

const sendsOf = (messages: readonly NewMessage[]) => messages.map((m) => ({ messageId: m.id, cost: m.cost, sendingKeyId: m.sendingKeyId }));

/** The messages whose payer could not pay for them: each payer is asked once for all its messages, then one by one. */
async function unpaidOf(tx: UnitOfWork, messages: readonly NewMessage[]): Promise<Set<NewMessage>> {
  const unpaid = new Set<NewMessage>();
  const paying = messages.filter((m) => m.cost > 0);
  for (const [payerId, list] of groupBy(paying, (m) => m.payerId)) {
    if (await tx.credits.debitSends(payerId, sendsOf(list))) continue;
    for (const m of list) if (!(await tx.credits.debitSends(payerId, sendsOf([m])))) unpaid.add(m);
  }
  return unpaid;
}

/** Records a batch of accepted messages in the transaction; per message, its queued recipients or the refusal. */
export async function recordMessages(tx: UnitOfWork, messages: readonly NewMessage[]): Promise<InsertOutcome[]> {
  const unpaid = await unpaidOf(tx, messages);
  const paid = messages.filter((m) => !unpaid.has(m));
  if (!paid.length) return messages.map(() => 'insufficient_balance');
  // A message with nothing to send (every recipient suppressed, disposable or invalid) keeps no body.
  const due = await tx.messages.record(paid.map((m) => (m.cost > 0 ? m : { ...m, body: null })));
  const depths = depthBumps(paid.flatMap((m) => m.recipients.map((r) => ({ teamId: m.teamId, from: null, to: r.state }))));
  if (depths.length) await tx.counters.bumpDepths(depths);
  const dueOf = new Map(paid.map((m, i) => [m, due[i]!]));
  return messages.map((m) => dueOf.get(m) ?? 'insufficient_balance');
}

/** The messages of every caller recorded while the writer is busy, recorded together. */
export class MessageRecorder {
  private readonly batcher: Batcher<UnitOfWork, NewMessage, InsertOutcome>;

  constructor(transaction: Transaction) {
    this.batcher = new Batcher(transaction, recordMessages);
  }

  /** Records one message (its credits taken in the same transaction); resolves once it is committed. */
  record(message: NewMessage): Promise<InsertOutcome> {
    return this.batcher.submit(message);
  }
}

/** Records one message in a transaction of its own (what the recorder does for many). */
export async function recordOne(transaction: Transaction, message: NewMessage): Promise<InsertOutcome> {
  const [outcome] = await transaction((tx) => recordMessages(tx, [message]));
  return outcome!;
}
