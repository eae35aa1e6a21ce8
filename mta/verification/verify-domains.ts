// The automatic domain check: every interval, each draft domain younger than the age limit is checked
// in DNS; older drafts stop being checked, with a reason. One process at a time holds a Redis lock.
import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { RELEASE_LOCK_SCRIPT } from '../../shared/redis.js';
import { redisKeys } from '../../shared/redis-keys.js';
import type { Runtime } from '../../shared/runtime/runtime.js';
import { checkDomainDns } from '../../shared/verification/domain-check.js';
import { recordRound, type RecordedRound } from '../../shared/verification/rounds.js';

export interface VerifyRound {
  ran: boolean;
  checked: number;
  verified: number;
  expired: number;
}

export class DomainVerifier {
  private timer: NodeJS.Timeout | null = null;
  /** Set by stop(): a round finishing after it must not schedule the next one. */
  private stopped = false;
  private running: Promise<VerifyRound> | null = null;
  private readonly holder = randomBytes(8).toString('hex');

  constructor(
    private readonly rt: Runtime,
    private readonly resolver: Resolver,
  ) {}

  start(): void {
    this.stopped = false;
    const every = this.rt.config.verify.intervalS * 1000;
    const schedule = (delay: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.round().finally(() => schedule(every)), delay);
    };
    schedule(Math.min(every, 1000));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round, unless another process holds the lock. Never throws: a failed round is logged and retried next time. */
  round(): Promise<VerifyRound> {
    this.running ??= this.lockedRound()
      .catch((err: Error) => {
        this.rt.log.error({ err: err.message }, 'domain verification round failed');
        return { ran: false, checked: 0, verified: 0, expired: 0 };
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async lockedRound(): Promise<VerifyRound> {
    const { redis, config } = this.rt;
    const lock = redisKeys.verifyLock();
    const got = await redis.set(lock, this.holder, 'PX', config.verify.lockTtlS * 1000, 'NX');
    if (got !== 'OK') return { ran: false, checked: 0, verified: 0, expired: 0 };
    try {
      const round = await this.checkAll();
      const recorded: RecordedRound = { endedAt: new Date().toISOString(), checked: round.checked, verified: round.verified, expired: round.expired };
      // The round's work is done; a record that cannot be written only leaves the status one round behind.
      await recordRound(redis, recorded).catch((err: Error) => this.rt.log.warn({ err: err.message }, 'last round not recorded'));
      return round;
    } finally {
      await redis.eval(RELEASE_LOCK_SCRIPT, 1, lock, this.holder).catch(() => undefined);
    }
  }

  private async checkAll(): Promise<VerifyRound> {
    const { store, config, log } = this.rt;
    const maxAgeMs = config.verify.maxDraftAgeDays * 86_400_000;
    const round: VerifyRound = { ran: true, checked: 0, verified: 0, expired: 0 };
    for (const domain of await store.domains.awaitingCheck()) {
      if (this.stopped) break; // shutting down: the rest waits for the next process to hold the lock
      if (Date.now() - Date.parse(domain.createdAt) > maxAgeMs) {
        const reason = `Draft older than ${config.verify.maxDraftAgeDays} days: automatic checks stopped. Remove the domain and add it again to restart them.`;
        await store.domains.stopAutoVerify(domain.id, reason);
        log.info({ domain: domain.id, name: domain.name }, 'domain draft expired; automatic checks stopped');
        round.expired++;
        continue;
      }
      const check = await checkDomainDns(domain, this.resolver, config.publicHostname);
      await store.domains.recordCheck(domain.id, { verified: check.verified, dmarcPolicy: check.dmarcPolicy, summary: check.summary, result: check });
      round.checked++;
      if (check.verified) {
        round.verified++;
        log.info({ domain: domain.id, name: domain.name }, 'domain verified');
      }
    }
    return round;
  }
}
