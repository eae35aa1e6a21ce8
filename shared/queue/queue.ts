// The delivery queue: the one owner of a recipient's way from recorded to finished. It enqueues what the
// intake recorded, claims due recipients under a lease token, finishes them (fenced on that token), releases
// leases, expires recipients too long in the queue, rebuilds the Redis schedule from SQLite and sweeps what
// the schedule lost; and it carries out operators' holds, releases, flushes, purges and requeues. The store is the
// authority; Redis only says what is due when (schedule.ts). What a result, a purge or a requeue does is decided
// here (finish.ts, operator-moves.ts) and written through the store's unit of work. The intake (API and MTA
// processes), the scheduler (MTA) and operators (API, CLI) reach the queue only through here.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import type { AttemptResult, DueRecipient, FinishOutcome, Lease, QueueRepository } from '../store/queue.js';
import type {
  ChangedRecipient,
  DestinationSummary,
  DueAgain,
  PurgeOutcome,
  QueueAudit,
  QueueControlRepository,
  QueuedRecipient,
  QueueSelector,
  RequeueOutcome,
} from '../store/queue-control.js';
import type { Transaction, UnitOfWork } from '../store/unit-of-work.js';
import type { DisposableDomains } from '../domain/screening.js';
import { Batcher } from '../write-batcher.js';
import { Schedule, type Due } from './schedule.js';
import { finishBatches } from './finish.js';
import { hold, purge, release, requeue } from './operator-moves.js';

export type { AttemptResult, DueRecipient, FinishOutcome, Lease } from '../store/queue.js';
export type {
  ChangedRecipient,
  DestinationSummary,
  DueAgain,
  PurgeOutcome,
  QueueAudit,
  QueuedRecipient,
  QueueSelector,
  RequeueOutcome,
  SuppressedRecipient,
} from '../store/queue-control.js';

/** The queue's repositories: its rows as delivery moves them, operators' reads and moves, and the unit of work. */
export interface QueueRepositories {
  queue: QueueRepository;
  queueControl: QueueControlRepository;
  transaction: Transaction;
}

/** Kept bodies deleted per statement: short write transactions beside the deliveries. */
const KEPT_BODIES_BATCH = 500;

/** The most overdue recipients one sweep puts back on the schedule. */
const SWEEP_LIMIT = 10_000;

/** The result that ends a claimed recipient too long in the queue: it fails, and counts as a soft bounce. */
export function expiry(lease: DueRecipient, reply: string): AttemptResult {
  return { recipientId: lease.id, leaseToken: lease.leaseToken, to: 'failed', reply, mxHost: null, ip: null };
}

export class Queue {
  private readonly schedule: Schedule;
  /** Who claims, in every token this process hands out: which host and process held a lease shows in the logs. */
  private readonly owner = `${hostname()}/${process.pid}`;

  private readonly store: QueueRepository;
  private readonly control: QueueControlRepository;
  private readonly transaction: Transaction;
  /** Results finishing together are recorded together: one transaction, a handful of statements. */
  private readonly results: Batcher<UnitOfWork, readonly AttemptResult[], FinishOutcome>;

  constructor(
    repositories: QueueRepositories,
    redis: Redis,
    private readonly log: Logger,
  ) {
    this.store = repositories.queue;
    this.control = repositories.queueControl;
    this.transaction = repositories.transaction;
    this.results = new Batcher(this.transaction, finishBatches);
    this.schedule = new Schedule(redis);
  }

  /**
   * Schedules the recipients the intake has just recorded (committed in SQLite) and wakes the schedulers.
   * Never fails: without Redis the message is still safe, and the MTA's rebuild or sweep picks it up.
   */
  async enqueue(messageId: string, due: readonly Due[]): Promise<void> {
    if (!due.length) return;
    try {
      await this.schedule.addAndWake(messageId, due);
    } catch (err) {
      this.log.warn({ msg_id: messageId, err: (err as Error).message }, 'not scheduled in Redis; the MTA will pick it up from SQLite');
    }
  }

  /**
   * Takes up to `max` due recipients off the schedule and leases them for `leaseMs` under a new token.
   * Each claimed recipient goes back on the schedule at its lease's end: if this worker dies with it, any
   * other worker claims it as soon as the lease runs out, not a sweep later. A result takes that entry off.
   * An id the store does not find due is put back at the time the store has for it (its next attempt, or
   * another worker's lease's end), or dropped when it has left the queue: a stale rebuild by another process
   * can move an entry forward, and dropping it would leave the recipient to the sweep, a minute late.
   */
  async claim(max: number, leaseMs: number): Promise<DueRecipient[]> {
    const now = Date.now();
    const ids = await this.schedule.popDue(now, max);
    if (!ids.length) return [];
    const claimed = await this.store.claim(ids, now, now + leaseMs, this.newToken());
    const leased = claimed.map((r) => ({ id: r.id, due: now + leaseMs }));
    const taken = new Set(claimed.map((r) => r.id));
    const notDue = ids.filter((id) => !taken.has(id));
    // Not watched now (Redis away), the lease is found by the sweep once it has run out.
    await Promise.all([this.schedule.add(leased, null), notDue.length ? this.putBack(notDue) : undefined]).catch(() => undefined);
    return claimed;
  }

  private async putBack(ids: readonly number[]): Promise<void> {
    await this.schedule.add(await this.store.inFlightOf(ids), 'LT');
  }

  /**
   * Records delivery results (`expiry` ones included). A result whose lease token the recipient no longer
   * carries (the lease ran out and another worker claimed it, or it was released) is refused: nothing of it is
   * written, and it is logged. Accepted retries go back on the schedule.
   */
  async finish(results: readonly AttemptResult[]): Promise<FinishOutcome> {
    if (!results.length) return { finished: [], bounces: [], refused: [] };
    const outcome = await this.results.submit(results);
    for (const { result, currentToken, currentState } of outcome.refused) {
      this.log.warn(
        { rcpt_id: result.recipientId, lease_token: result.leaseToken, current_lease_token: currentToken, current_state: currentState, result: result.to },
        'delivery result refused: the lease is no longer held by this worker',
      );
    }
    const refused = new Set(outcome.refused.map((r) => r.result));
    // A refused result's recipient is another worker's now, and so is its entry on the schedule.
    const recorded = results.filter((r) => !refused.has(r));
    const retries = recorded.filter((r) => r.to === 'deferred').map((r) => ({ id: r.recipientId, due: r.nextAttemptAt ?? Date.now() }));
    const ended = recorded.filter((r) => r.to !== 'deferred').map((r) => r.recipientId);
    // Not scheduled now, scheduled by the next rebuild or sweep; an entry not removed is dropped when it pops.
    await Promise.all([this.schedule.add(retries, null), this.schedule.remove(ended)]).catch(() => undefined);
    return outcome;
  }

  /**
   * Gives leases back (graceful stop): the recipients are due at once, for the rebuild at the next start or
   * another MTA's sweep (a stopping process does not wait on Redis). A lease another worker took over is left alone.
   */
  async release(leases: readonly Lease[]): Promise<void> {
    const released = new Set(await this.store.release(leases, Date.now()));
    const lost = leases.filter((l) => !released.has(l.id));
    if (!lost.length) return;
    this.log.warn(
      { rcpt_ids: lost.map((l) => l.id), lease_tokens: [...new Set(lost.map((l) => l.leaseToken))] },
      'not released: the lease is no longer held by this worker',
    );
  }

  /** Puts every in-flight recipient the store knows on the schedule, at its time there or earlier if Redis has that. */
  async rebuild(): Promise<number> {
    try {
      const rows = await this.store.inFlight();
      await this.schedule.add(rows, 'LT');
      return rows.length;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'schedule rebuild failed; will retry');
      return 0;
    }
  }

  /** Puts back on the schedule the in-flight recipients overdue by more than `graceMs` (lost from Redis, or a dead worker's lease). */
  async sweep(graceMs: number): Promise<void> {
    try {
      await this.schedule.add(await this.store.overdue(Date.now() - graceMs, SWEEP_LIMIT), 'LT');
    } catch {
      // Redis or SQLite busy: the next sweep tries again.
    }
  }

  /** Recipients in the queue (in flight, and held), by state: the queue depth metric and `ternmail status`. */
  depth(): Promise<Record<string, number>> {
    return this.store.countInFlight();
  }

  /**
   * Calls `onWake` when mail is queued, and rebuilds the schedule whenever the Redis connection comes back
   * (it may be an empty Redis). Answers the function that stops watching.
   */
  watch(onWake: () => void): Promise<() => void> {
    return this.schedule.watch(onWake, () => void this.rebuild());
  }

  /** The recipients in the queue an operator chose, oldest first. */
  listQueued(selector: QueueSelector, limit: number): Promise<QueuedRecipient[]> {
    return this.control.listQueued(selector, limit);
  }

  /** The chosen recipients by destination domain (qshape). */
  summarize(selector: QueueSelector): Promise<DestinationSummary[]> {
    return this.control.summarize(selector);
  }

  /** Holds the chosen waiting recipients: never claimed (their schedule entries are dropped at claim) nor expired. */
  hold(selector: QueueSelector, audit: QueueAudit): Promise<ChangedRecipient[]> {
    return hold(this.transaction, selector, Date.now(), audit);
  }

  /** Releases the chosen held recipients, due now. */
  async releaseHeld(selector: QueueSelector, audit: QueueAudit): Promise<DueAgain[]> {
    const due = await release(this.transaction, selector, Date.now(), audit);
    await this.scheduleNow(due);
    return due;
  }

  /** Makes the chosen waiting recipients due now (postqueue -f). */
  async flush(selector: QueueSelector, audit: QueueAudit): Promise<DueAgain[]> {
    const due = await this.control.flush(selector, Date.now(), audit);
    await this.scheduleNow(due);
    return due;
  }

  /** Ends the chosen recipients not being attempted as failed, refunded; soft bounces reported only with `notify`. */
  purge(selector: QueueSelector, reason: string, notify: boolean, audit: QueueAudit): Promise<PurgeOutcome> {
    return purge(this.transaction, selector, reason, notify, audit);
  }

  /**
   * Sends the chosen bounced or failed recipients again (while their bodies are kept), due now; an address the
   * intake would not send to (`disposable`, or suppressed) is left alone.
   */
  async requeue(selector: QueueSelector, audit: QueueAudit, disposable: DisposableDomains): Promise<RequeueOutcome> {
    const outcome = await requeue(this.transaction, selector, Date.now(), audit, disposable);
    if (outcome.ok) await this.scheduleNow(outcome.requeued);
    return outcome;
  }

  /** Deletes the bodies kept for requeue of messages finished before `finishedBefore` (epoch ms), a batch at a time. */
  async dropKeptBodies(finishedBefore: number): Promise<void> {
    try {
      while ((await this.control.dropKeptBodies(new Date(finishedBefore).toISOString(), KEPT_BODIES_BATCH)) === KEPT_BODIES_BATCH);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'kept bodies not dropped; the next sweep tries again');
    }
  }

  /**
   * Puts recipients an operator made due on the schedule at their new time and wakes the schedulers. Never
   * fails: SQLite already says they are due, and the MTA's sweep finds them without Redis.
   */
  private async scheduleNow(due: readonly Due[]): Promise<void> {
    if (!due.length) return;
    try {
      await this.schedule.add(due, null);
      await this.schedule.wake('operator');
    } catch (err) {
      this.log.warn({ err: (err as Error).message, recipients: due.length }, 'not scheduled in Redis; the MTA sweep will pick them up from SQLite');
    }
  }

  private newToken(): string {
    return `${this.owner}/${randomBytes(9).toString('base64url')}`;
  }
}
