// A message's status and body after its recipients moved, decided here and written through the unit of work in
// the same transaction: the status from its recipients' states (domain/queue-state.ts messageStatusOf), and, once
// nothing of it is left in the queue, its body dropped — unless a recipient bounced or failed (REQUEUEABLE):
// then the body is kept for an operator's requeue, marked with when, and the queue's sweep deletes it once the
// requeue window has passed.
import { messageStatusOf, REQUEUEABLE, type MessageStatus } from '../domain/queue-state.js';
import { figureStatusesOf } from '../domain/figures.js';
import type { UnitOfWork } from '../store/unit-of-work.js';

/** Re-derives the messages' statuses from their recipients, and drops or keeps the bodies of those that ended. */
export async function refreshStatuses(tx: UnitOfWork, messageIds: readonly string[]): Promise<Map<string, MessageStatus>> {
  const statuses = new Map<string, MessageStatus>();
  if (!messageIds.length) return statuses;
  const statesOf = await tx.messages.recipientStates(messageIds);
  const derived = messageIds.map((id) => {
    const recipients = statesOf.get(id) ?? [];
    const states = recipients.map((r) => r.state);
    return {
      id,
      status: messageStatusOf(states),
      sent: states.includes('sent'),
      counted: figureStatusesOf(recipients),
      requeueable: states.some((s) => REQUEUEABLE.includes(s)),
    };
  });
  for (const d of derived) statuses.set(d.id, d.status);
  await tx.messages.setStatuses(derived.map(({ id, status, sent, counted }) => ({ id, status, sent, counted })));
  const ended = derived.filter((d) => d.status !== 'pending');
  await tx.messages.dropBodies(ended.filter((d) => !d.requeueable).map((d) => d.id));
  await tx.messages.markKept(ended.filter((d) => d.requeueable).map((d) => d.id));
  return statuses;
}
