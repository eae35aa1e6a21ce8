// Per-destination connection slots shared by every MTA on one Redis, as KumoMTA's shared throttles are: a
// sorted set per destination domain whose members are the slots held (score: when each one's lease runs out,
// in Redis's own clock, so machines' clocks never matter). A slot is taken before a connection's batch starts
// and given back when it ends: one script call each way per connection, never per message. A live holder
// renews all its slots in one round trip every third of the lease; a killed MTA stops renewing, and its slots
// are reclaimed by the next taker once their lease has run out. While several MTAs want one destination, each
// gets its share of the limit, not whoever took the slots first all of them. When Redis does not answer, the scheduler's
// local per-process cap alone applies (said once in the log): sending goes on rather than stops.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/log.js';
import { redisKeys } from '../../shared/redis-keys.js';

/** Redis's time in ms (TIME is allowed in scripts: Redis 7 replicates a script's effects, not the script). */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS[1]: the destination's slots, KEYS[2]: its waiters; ARGV: slot id, limit, lease ms, holder id, waiting mark
 * ms. 1 when taken, 0 when not. A holder turned away marks itself waiting. While another holder waits, a holder
 * with its share of the limit (the limit split among itself and the waiters) takes no more: the slots it gives
 * back go to the waiters, instead of every freed slot going back at once to whoever holds the most.
 */
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local limit = tonumber(ARGV[2])
local holder = ARGV[4]
local refuse = redis.call('ZCARD', KEYS[1]) >= limit
if not refuse then
  local others = redis.call('ZCARD', KEYS[2])
  if redis.call('ZSCORE', KEYS[2], holder) then others = others - 1 end
  if others > 0 then
    local mine = 0
    for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
      if string.sub(id, 1, #holder + 1) == holder .. ':' then mine = mine + 1 end
    end
    refuse = mine >= math.ceil(limit / (others + 1))
  end
end
if refuse then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), holder)
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  return 0
end
redis.call('ZREM', KEYS[2], holder)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

/**
 * How long a holder turned away counts as waiting. The scheduler asks again every 250 ms while it has work for
 * the destination, so the mark stays while it waits and lapses soon after it stops.
 */
const WAITING_MARK_MS = 1000;

/** KEYS: the sets; ARGV[1]: lease ms, then one slot id per key. Pushes each still-held slot's lease; how many were. */
const RENEW = `${NOW}
local renewed = 0
for i = 1, #KEYS do
  renewed = renewed + redis.call('ZADD', KEYS[i], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[i + 1])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return renewed`;

/** A slot taken: in Redis (`id` names it there), or only locally while Redis did not answer. */
export type Slot = { domain: string; id: string; shared: true } | { domain: string; shared: false };

/**
 * The scripts run with EVAL, not as commands defined on the client (defineCommand): with auto-pipelining, a
 * pipeline opened before the definition lacks the command ("pipeline[functionName] is not a function"), which
 * under load turned every take into a failure. Redis caches a script by its digest, so EVAL costs only the bytes.
 */
const takeSlot = async (redis: Redis, domain: string, holder: string, id: string, limit: number, leaseMs: number): Promise<number> =>
  Number(await redis.eval(TAKE, 2, redisKeys.destinationSlots(domain), redisKeys.destinationWaiters(domain), id, limit, leaseMs, holder, WAITING_MARK_MS));
const renewSlots = async (redis: Redis, keys: readonly string[], leaseMs: number, ids: readonly string[]): Promise<number> =>
  Number(await redis.eval(RENEW, keys.length, ...keys, leaseMs, ...ids));

export interface DestinationSlotsOptions {
  redis: Redis;
  log: Logger;
  /** How long a slot lives without renewal (config.delivery.destinationSlotLeaseS). */
  leaseMs: number;
  /** How long a take may wait for Redis before the local cap alone decides (default 1 s). */
  timeoutMs?: number;
}

export class DestinationSlots {
  /** Slot ids held in Redis, with their domain. */
  private readonly held = new Map<string, string>();
  private readonly holder = randomUUID();
  private seq = 0;
  private renewTimer: NodeJS.Timeout | null = null;
  /** Redis failed the last call: the local cap alone applies until it answers again. */
  private degraded = false;

  constructor(private readonly o: DestinationSlotsOptions) {}

  start(): void {
    this.renewTimer = setInterval(() => void this.renew(), Math.max(1000, Math.floor(this.o.leaseMs / 3)));
    this.renewTimer.unref();
  }

  /** Stops renewing and gives back every slot still held. */
  async stop(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    await Promise.all([...this.held].map(([id, domain]) => this.release({ domain, id, shared: true })));
  }

  /**
   * A slot for one connection to `domain` when fewer than `limit` are held across every MTA, and this holder
   * is within its share while others wait; null when not. A local slot when Redis does not answer in time.
   */
  async take(domain: string, limit: number): Promise<Slot | null> {
    const id = `${this.holder}:${++this.seq}`;
    const taking = this.o.redis.status === 'ready' ? takeSlot(this.o.redis, domain, this.holder, id, limit, this.o.leaseMs) : null;
    const answer = taking ? await within(taking, this.o.timeoutMs ?? 1000) : { ok: false as const, reason: `Redis is ${this.o.redis.status}` };
    if (!answer.ok) {
      // A take that lands after we gave up would hold a slot nobody uses: give it back then.
      void taking?.then((taken) => (taken === 1 ? this.forget(domain, id) : undefined)).catch(() => undefined);
      this.degrade(answer.reason);
      return { domain, shared: false };
    }
    this.recover();
    if (answer.value !== 1) return null;
    this.held.set(id, domain);
    return { domain, id, shared: true };
  }

  /** Gives a slot back (a local one needs nothing); a failure leaves it to expire with its lease. */
  async release(slot: Slot): Promise<void> {
    if (!slot.shared) return;
    this.held.delete(slot.id);
    await this.forget(slot.domain, slot.id);
  }

  /** Slots held in Redis now, for tests and stop. */
  heldCount(): number {
    return this.held.size;
  }

  private async forget(domain: string, id: string): Promise<void> {
    await this.o.redis.zrem(redisKeys.destinationSlots(domain), id).catch(() => undefined);
  }

  /** One round trip for every slot held; one lost (its lease ran out while Redis was away) is said in the log. */
  private async renew(): Promise<void> {
    const slots = [...this.held];
    if (!slots.length || this.o.redis.status !== 'ready') return;
    try {
      const keys = slots.map(([, domain]) => redisKeys.destinationSlots(domain));
      const renewed = await renewSlots(
        this.o.redis,
        keys,
        this.o.leaseMs,
        slots.map(([id]) => id),
      );
      if (renewed < slots.length) this.o.log.warn({ held: slots.length, renewed }, 'destination slots expired before renewal');
    } catch (err) {
      this.degrade((err as Error).message);
    }
  }

  private degrade(reason: string): void {
    if (this.degraded) return;
    this.degraded = true;
    this.o.log.warn({ reason }, 'shared destination limits unavailable: delivering under the per-process cap alone until Redis answers');
  }

  private recover(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.o.log.info('shared destination limits back');
  }
}

type Answer<T> = { ok: true; value: T } | { ok: false; reason: string };

/** What `p` resolves to within `ms`, or why not. */
async function within<T>(p: Promise<T>, ms: number): Promise<Answer<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Answer<T>>((resolve) => (timer = setTimeout(() => resolve({ ok: false, reason: `no answer in ${ms} ms` }), ms)));
  try {
    return await Promise.race([
      p.then(
        (value): Answer<T> => ({ ok: true, value }),
        (err: Error): Answer<T> => ({ ok: false, reason: err.message }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
