// The scheduler: claims due recipients from the queue (queue/queue.ts), groups them by destination domain
// and runs deliveries within a global and a per-domain concurrency cap, then hands the results back to the
// queue. The per-domain cap holds across every MTA on the same Redis: a connection's batch starts only with a
// slot from destination-slots.ts (the local count stays, and is all there is while Redis does not answer). The queue's schedule is rebuilt on start, after a Redis reconnect, and swept for anything overdue
// every SWEEP_MS, so losing Redis loses no message.
import type { Runtime } from '../../shared/runtime/runtime.js';
import { expiry, type AttemptResult, type DueRecipient, type Queue } from '../../shared/queue/queue.js';
import { metrics } from '../../shared/metrics.js';
import { verpAddress } from '../../shared/verp.js';
import { domainOfEmail } from '../../shared/email-address.js';
import { nextAttemptAt } from './retry-policy.js';
import type { RetryPolicy } from '../../shared/policies/retry.js';
import { deliverToDomain, type DeliverOptions, type DeliveryJob, type JobResult } from './deliver.js';
import type { MessagePreparer } from './prepare.js';
import type { Outcomes } from '../outcomes/outcome.js';
import type { DestinationSlots } from './destination-slots.js';

const POLL_MS = 250;
/**
 * Wake-ups (one per accepted message) arriving within this window are served by one tick: one claim for
 * them all, and their recipients share connections, instead of a claim and a connection per message.
 */
const WAKE_COALESCE_MS = 25;
const SWEEP_MS = 30_000;
const MAX_WAITING = 5_000;
/** A destination full across the MTAs is asked again after this long (or when one of our own batches to it ends). */
const FULL_RETRY_MS = 250;

export interface SchedulerDeps {
  rt: Runtime;
  queue: Queue;
  preparer: MessagePreparer;
  retry: RetryPolicy;
  verpSecret: Buffer;
  deliver: Omit<DeliverOptions, 'ehloName' | 'localAddress'>;
  outcomes: Outcomes;
  /** Connection slots per destination shared with the other MTAs. */
  slots: DestinationSlots;
  /** The sending pool of a team's region. */
  sendingPoolFor(teamId: number): Promise<{ ehloName: string; localAddress?: string }>;
}

export class Scheduler {
  private readonly waiting = new Map<string, DueRecipient[]>();
  private readonly activePerDomain = new Map<string, number>();
  /** Destinations found full across the MTAs, and when to ask for a slot again. */
  private readonly fullUntil = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Every recipient this scheduler holds a lease on, by id. */
  private readonly leased = new Map<number, DueRecipient>();
  private active = 0;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private ticking = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** A wake-up came during a tick: tick again once it ends. */
  private wokenWhileTicking = false;

  constructor(private readonly d: SchedulerDeps) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.d.slots.start();
    await this.d.queue.rebuild();
    // Woken by new mail; after Redis comes back (possibly empty), the queue rebuilds its schedule.
    this.unwatch = await this.d.queue.watch(() => this.wake());
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.sweepTimer = setInterval(() => {
      void this.d.queue.sweep(SWEEP_MS);
      void this.d.queue.dropKeptBodies(Date.now() - this.d.retry.requeueWindowS * 1000);
    }, SWEEP_MS);
    void this.tick();
  }

  /** Stops taking work, lets deliveries under way finish (up to `graceMs`), and releases the rest. */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.unwatch?.();
    this.waiting.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.inFlight), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    await this.d.slots.stop();
    // Every lease still held: those waiting for a connection, and deliveries that outlived the grace.
    await this.d.queue.release([...this.leased.values()]).catch(() => undefined);
  }

  private waitingCount(): number {
    let n = 0;
    for (const list of this.waiting.values()) n += list.length;
    return n;
  }

  private wake(): void {
    if (this.wakeTimer || this.stopped) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      void this.tick();
    }, WAKE_COALESCE_MS);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.ticking) {
      this.wokenWhileTicking = true;
      return;
    }
    this.ticking = true;
    this.wokenWhileTicking = false;
    try {
      const room = MAX_WAITING - this.waitingCount();
      if (room > 0) await this.take(Math.min(room, 1000));
      this.dispatch();
    } catch (err) {
      this.d.rt.log.warn({ err: (err as Error).message }, 'scheduler tick failed');
    } finally {
      this.ticking = false;
      if (this.wokenWhileTicking) this.wake();
    }
  }

  private async take(max: number): Promise<void> {
    const claimed = await this.d.queue.claim(max, this.leaseMs());
    for (const r of claimed) {
      this.leased.set(r.id, r);
      const list = this.waiting.get(r.domain) ?? [];
      list.push(r);
      this.waiting.set(r.domain, list);
    }
  }

  private leaseMs(): number {
    return this.d.rt.config.delivery.leaseS * 1000;
  }

  /** Starts deliveries while the caps allow: one connection per batch of recipients of one domain. */
  private dispatch(): void {
    const { concurrency, perDomainConcurrency, recipientsPerConnection } = this.d.rt.config.delivery;
    const now = Date.now();
    for (const [domain, list] of this.waiting) {
      const fullUntil = this.fullUntil.get(domain);
      if (fullUntil !== undefined && fullUntil > now) continue;
      this.fullUntil.delete(domain);
      while (list.length && this.active < concurrency && (this.activePerDomain.get(domain) ?? 0) < perDomainConcurrency) {
        const batch = list.splice(0, recipientsPerConnection);
        this.run(domain, batch);
      }
      if (!list.length) this.waiting.delete(domain);
      if (this.active >= concurrency) return;
    }
  }

  private run(domain: string, batch: DueRecipient[]): void {
    this.active++;
    this.activePerDomain.set(domain, (this.activePerDomain.get(domain) ?? 0) + 1);
    const job = this.deliverWithSlot(domain, batch)
      .catch((err: Error) => this.d.rt.log.error({ err: err.message, domain }, 'delivery batch failed'))
      .finally(() => {
        this.active--;
        this.activePerDomain.set(domain, (this.activePerDomain.get(domain) ?? 1) - 1);
        this.inFlight.delete(job);
        if (!this.stopped) this.dispatch();
      });
    this.inFlight.add(job);
  }

  /** Delivers the batch under a slot of its destination; when the destination is full, it waits in line again. */
  private async deliverWithSlot(domain: string, batch: DueRecipient[]): Promise<void> {
    const slot = await this.d.slots.take(domain, this.d.rt.config.delivery.perDomainConcurrency);
    if (!slot) {
      this.fullUntil.set(domain, Date.now() + FULL_RETRY_MS);
      // After stop() the waiting lists are gone and the batch's leases are released with every other one.
      if (!this.stopped) this.waiting.set(domain, [...batch, ...(this.waiting.get(domain) ?? [])]);
      return;
    }
    try {
      await this.deliverBatch(domain, batch);
    } finally {
      // Our own connection ended: the destination has room again, whatever we heard before.
      this.fullUntil.delete(domain);
      await this.d.slots.release(slot);
    }
  }

  private async deliverBatch(domain: string, batch: DueRecipient[]): Promise<void> {
    const now = Date.now();
    // A retry is scheduled at the deadline at the latest; only one that missed it by a lease is expired unseen.
    const expired = batch.filter((r) => now >= r.ageFrom + this.d.retry.maxQueueAgeS * 1000 + this.leaseMs());
    const live = batch.filter((r) => !expired.includes(r));
    const results: AttemptResult[] = expired.map((r) => expiry(r, 'expired: too long in the queue'));
    // Recipients of one batch share a connection, so they share the sending pool of the first one's team.
    const sendingPool = live.length ? await this.d.sendingPoolFor(live[0]!.teamId) : null;
    if (live.length && sendingPool) {
      const jobs = this.jobsFor(live);
      const delivered = await deliverToDomain(domain, jobs, { ...this.d.deliver, ...sendingPool });
      results.push(...delivered.map((res) => this.toAttempt(res, live)));
    }
    await this.finish(batch, results);
  }

  private jobsFor(recipients: readonly DueRecipient[]): DeliveryJob[] {
    return recipients.map((r) => ({
      recipientId: r.id,
      email: r.email,
      returnPath: verpAddress(r.id, domainOfEmail(r.envelopeFrom), this.d.verpSecret),
      body: () => this.d.preparer.signed(r.messageId, r.domainId),
    }));
  }

  private toAttempt(res: JobResult, recipients: readonly DueRecipient[]): AttemptResult {
    const r = recipients.find((x) => x.id === res.recipientId)!;
    const base = { recipientId: res.recipientId, leaseToken: r.leaseToken, reply: res.outcome.reply, mxHost: res.mxHost, ip: res.ip };
    if (res.outcome.kind === 'delivered') return { ...base, to: 'sent' };
    if (res.outcome.kind === 'bounced') return { ...base, to: 'bounced', hard: res.outcome.hard };
    const next = nextAttemptAt(r.attempts + 1, new Date(r.ageFrom), new Date(), this.d.retry);
    if (next === 'expired') return { ...base, to: 'failed', reply: `expired after temporary failures: ${res.outcome.reply}` };
    return { ...base, to: 'deferred', nextAttemptAt: next.getTime() };
  }

  /** Hands the results to the queue; a refused one (its lease lost) was logged there and is neither logged as an outcome nor counted here. */
  private async finish(batch: readonly DueRecipient[], results: readonly AttemptResult[]): Promise<void> {
    const { finished, bounces, refused } = await this.d.queue.finish(results);
    for (const b of bounces) await this.d.outcomes.bounceApplied(b.input, b.applied);
    for (const r of batch) if (this.leased.get(r.id) === r) this.leased.delete(r.id);
    const stale = new Set(refused.map((r) => r.result));
    for (const res of results.filter((r) => !stale.has(r))) {
      this.logResult(res, batch);
      this.measure(res, batch);
    }
    for (const id of finished) this.d.preparer.forget(id);
  }

  private measure(res: AttemptResult, batch: readonly DueRecipient[]): void {
    metrics.recipientOutcomes.inc({ outcome: res.to });
    const queuedAt = batch.find((x) => x.id === res.recipientId)?.queuedAt;
    if (res.to !== 'deferred' && queuedAt) metrics.deliveryLatency.observe((Date.now() - queuedAt) / 1000);
  }

  private logResult(res: AttemptResult, batch: readonly DueRecipient[]): void {
    const r = batch.find((x) => x.id === res.recipientId);
    this.d.rt.log.info({ msg_id: r?.messageId, rcpt: r?.email, state: res.to, mx: res.mxHost, reply: res.reply }, `recipient ${res.to}`);
  }
}
