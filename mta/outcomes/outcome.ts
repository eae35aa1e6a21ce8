// After an outcome was applied — its effects decided by domain/outcome.ts and written through the store's unit of work in one
// transaction (for delivery replies, the very transaction that records the attempt) — logs it, wakes the
// webhook dispatcher and checks the team's reputation. Bounces come from the SMTP reply, a DSN or expiry;
// complaints from ARF reports.
import type { Runtime } from '../../shared/runtime/runtime.js';
import { recordBounce, recordComplaint, type Applied, type BounceInput, type ComplaintInput } from '../../shared/queue/effects.js';
import type { Reputation } from './reputation.js';

export interface OutcomeDeps {
  rt: Runtime;
  reputation: Reputation;
  /** Called when new events are in the outbox. */
  wake(): void;
}

export class Outcomes {
  constructor(private readonly d: OutcomeDeps) {}

  async bounce(input: BounceInput): Promise<Applied | null> {
    const applied = await recordBounce(this.d.rt.store.transaction, input);
    if (applied) await this.bounceApplied(input, applied);
    return applied;
  }

  /** After a bounce was applied (by bounce() or inside the delivery transaction): log, wake, check reputation. */
  async bounceApplied(input: BounceInput, applied: Applied): Promise<void> {
    this.d.rt.log.info(
      { msg_id: applied.messageId, rcpt: applied.email, hard: input.hard, source: input.source, suppressed: applied.suppressed, reason: input.reason },
      input.hard ? 'hard bounce' : 'soft bounce',
    );
    await this.after(applied);
  }

  async complaint(input: ComplaintInput): Promise<Applied | null> {
    const applied = await recordComplaint(this.d.rt.store.transaction, input);
    if (applied) {
      this.d.rt.log.info({ msg_id: applied.messageId, rcpt: applied.email, reason: input.reason }, 'complaint');
      await this.after(applied);
    }
    return applied;
  }

  private async after(applied: Applied): Promise<void> {
    if (applied.eventId !== null) this.d.wake();
    await this.d.reputation.check(applied.teamId);
  }
}
