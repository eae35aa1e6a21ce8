// The scheduler: takes due recipients from the Redis schedule, leases them in SQLite (the authority),
// groups them by destination domain and runs deliveries within a global and a per-domain concurrency cap.
// Redis only says what is due when; it is rebuilt from SQLite on start, after a Redis reconnect, and by a
// sweep for anything overdue, so losing Redis loses no message.
import type { Redis } from 'ioredis';
import type { Runtime } from '../shared/runtime.js';
import type { DueRecipient, AttemptResult } from '../store/sqlite/messages.js';
import { redisKeys } from '../shared/redis-keys.js';
import { metrics } from '../shared/metrics.js';
import { verpAddress } from '../shared/verp.js';
import { domainOfEmail } from '../shared/email-address.js';
import { nextAttemptAt, type RetryPolicy } from './retry-policy.js';
import { deliverToDomain, type DeliverOptions, type DeliveryJob, type JobResult } from './deliver.js';
import type { MessagePreparer } from './prepare.js';
import type { Outcomes } from '../feedback/outcome.js';

const POP_DUE = `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end
return ids`;

const POLL_MS = 250;
/**
 * Wake-ups (one per accepted message) arriving within this window are served by one tick: one claim for
 * them all, and their recipients share connections, instead of a claim and a connection per message.
 */
const WAKE_COALESCE_MS = 25;
const SWEEP_MS = 30_000;
const MAX_WAITING = 5_000;

export interface SchedulerDeps {
  rt: Runtime;
  preparer: MessagePreparer;
  retry: RetryPolicy;
  verpSecret: Buffer;
  deliver: Omit<DeliverOptions, 'ehloName' | 'localAddress'>;
  outcomes: Outcomes;
  /** The sending pool of a team's region. */
  poolFor(accountId: number): Promise<{ ehloName: string; localAddress?: string }>;
}

export class Scheduler {
  private readonly waiting = new Map<string, DueRecipient[]>();
  private readonly activePerDomain = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leased = new Set<number>();
  private active = 0;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private subscriber: Redis | null = null;
  private ticking = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** A wake-up came during a tick: tick again once it ends. */
  private wokenWhileTicking = false;

  constructor(private readonly d: SchedulerDeps) {}

  private readonly onRedisReady = (): void => void this.rebuild();

  async start(): Promise<void> {
    this.stopped = false;
    await this.rebuild();
    this.subscriber = this.d.rt.redis.duplicate();
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', () => this.wake());
    await this.subscriber.subscribe(redisKeys.queueWakeChannel()).catch(() => undefined);
    // After Redis comes back (possibly empty), put every in-flight recipient back on the schedule.
    this.d.rt.redis.on('ready', this.onRedisReady);
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_MS);
    void this.tick();
  }

  /** Stops taking work, lets deliveries under way finish (up to `graceMs`), and releases the rest. */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.subscriber?.disconnect();
    this.d.rt.redis.off('ready', this.onRedisReady);
    const waited = [...this.waiting.values()].flat().map((r) => r.id);
    this.waiting.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.inFlight), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    await this.d.rt.store.messages.release([...waited, ...this.leased]).catch(() => undefined);
  }

  /** Puts every in-flight recipient SQLite knows on the Redis schedule, keeping entries Redis already has. */
  async rebuild(): Promise<number> {
    try {
      const rows = await this.d.rt.store.messages.inFlight();
      await this.schedule(rows, 'NX');
      return rows.length;
    } catch (err) {
      this.d.rt.log.warn({ err: (err as Error).message }, 'schedule rebuild failed; will retry');
      return 0;
    }
  }

  private async sweep(): Promise<void> {
    try {
      const rows = await this.d.rt.store.messages.overdue(Date.now() - SWEEP_MS, 10_000);
      await this.schedule(rows, 'NX');
    } catch {
      // Redis or SQLite busy: the next sweep tries again.
    }
  }

  private async schedule(rows: ReadonlyArray<{ id: number; due: number }>, mode: 'NX' | 'XX' | null): Promise<void> {
    const key = redisKeys.queueDue();
    for (let i = 0; i < rows.length; i += 1000) {
      const args = rows.slice(i, i + 1000).flatMap((r) => [r.due, String(r.id)]);
      if (!args.length) continue;
      if (mode) await this.d.rt.redis.zadd(key, mode, ...args);
      else await this.d.rt.redis.zadd(key, ...args);
    }
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
    const now = Date.now();
    const ids = (await this.d.rt.redis.eval(POP_DUE, 1, redisKeys.queueDue(), now, max)) as string[];
    if (!ids.length) return;
    const claimed = await this.d.rt.store.messages.claim(ids.map(Number), now, now + this.leaseMs());
    for (const r of claimed) {
      this.leased.add(r.id);
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
    for (const [domain, list] of this.waiting) {
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
    const job = this.deliverBatch(domain, batch)
      .catch((err: Error) => this.d.rt.log.error({ err: err.message, domain }, 'delivery batch failed'))
      .finally(() => {
        this.active--;
        this.activePerDomain.set(domain, (this.activePerDomain.get(domain) ?? 1) - 1);
        this.inFlight.delete(job);
        if (!this.stopped) this.dispatch();
      });
    this.inFlight.add(job);
  }

  private async deliverBatch(domain: string, batch: DueRecipient[]): Promise<void> {
    const now = Date.now();
    // A retry is scheduled at the deadline at the latest; only one that missed it by a lease is expired unseen.
    const expired = batch.filter((r) => now >= r.queuedAt + this.d.retry.maxQueueAgeS * 1000 + this.leaseMs());
    const live = batch.filter((r) => !expired.includes(r));
    const results: AttemptResult[] = expired.map((r) => ({ recipientId: r.id, to: 'failed', reply: 'expired: too long in the queue', mxHost: null, ip: null }));
    // Recipients of one batch share a connection, so they share the pool of the first one's team.
    const pool = live.length ? await this.d.poolFor(live[0]!.accountId) : null;
    if (live.length && pool) {
      const jobs = this.jobsFor(live);
      const delivered = await deliverToDomain(domain, jobs, { ...this.d.deliver, ...pool });
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
    const base = { recipientId: res.recipientId, reply: res.outcome.reply, mxHost: res.mxHost, ip: res.ip };
    if (res.outcome.kind === 'delivered') return { ...base, to: 'sent' };
    if (res.outcome.kind === 'bounced') return { ...base, to: 'bounced', hard: res.outcome.hard };
    const r = recipients.find((x) => x.id === res.recipientId)!;
    const next = nextAttemptAt(r.attempts + 1, new Date(r.queuedAt), new Date(), this.d.retry);
    if (next === 'expired') return { ...base, to: 'failed', reply: `expired after temporary failures: ${res.outcome.reply}` };
    return { ...base, to: 'deferred', nextAttemptAt: next.getTime() };
  }

  private async finish(batch: readonly DueRecipient[], results: readonly AttemptResult[]): Promise<void> {
    const { finished, bounces } = await this.d.rt.store.messages.recordAttempts(results);
    for (const b of bounces) await this.d.outcomes.bounceApplied(b.input, b.applied);
    for (const r of batch) this.leased.delete(r.id);
    for (const res of results) {
      this.logResult(res, batch);
      this.measure(res, batch);
    }
    const retries = results.filter((r) => r.to === 'deferred').map((r) => ({ id: r.recipientId, due: r.nextAttemptAt! }));
    await this.schedule(retries, null).catch(() => undefined);
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
