// Node heartbeats: every API and MTA process records itself in Redis (role, host, pid, version, listening
// ports, start time, last heartbeat) every few seconds, under a key that expires a few heartbeats later. A
// killed node so disappears by itself, and what Redis holds is rebuilt by the next heartbeats after a loss.
// An index (a sorted set of node ids) lets a reader list them without scanning the keyspace; the records
// themselves, not the index, say who is alive.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from './log.js';
import { redisKeys } from './redis-keys.js';
import { ternVersion } from './version.js';

export type NodeRole = 'api' | 'mta';

export interface NodeRecord {
  id: string;
  role: NodeRole;
  host: string;
  pid: number;
  version: string;
  /** The ports it listens on, by name ("api", "metrics", "mx", "submission-starttls", …). */
  ports: Record<string, number>;
  /** ISO 8601 UTC. */
  startedAt: string;
  /** When it last recorded itself (ISO 8601 UTC). */
  lastSeen: string;
}

export interface HeartbeatTiming {
  intervalMs: number;
  /** How long a record outlives its last heartbeat. */
  ttlMs: number;
}

/** This process as a node of `role`, listening on `ports`. */
export function thisNode(role: NodeRole, ports: Record<string, number>): Omit<NodeRecord, 'lastSeen'> {
  return { id: randomUUID(), role, host: hostname(), pid: process.pid, version: ternVersion(), ports, startedAt: new Date().toISOString() };
}

export class NodeHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  /** A failed heartbeat is logged once until one succeeds again. */
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly node: Omit<NodeRecord, 'lastSeen'>,
    private readonly timing: HeartbeatTiming,
    private readonly log: Logger,
  ) {}

  /** Records the node now and every interval after. */
  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.timing.intervalMs);
    this.timer.unref();
  }

  /** Stops, and takes the record out at once (a node stopped cleanly is not left to expire). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.redis.status !== 'ready') return;
    await this.redis
      .multi()
      .del(redisKeys.node(this.node.id))
      .zrem(redisKeys.nodes(), this.node.id)
      .exec()
      .catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    const record: NodeRecord = { ...this.node, lastSeen: new Date(now).toISOString() };
    try {
      await this.redis
        .multi()
        .set(redisKeys.node(this.node.id), JSON.stringify(record), 'PX', this.timing.ttlMs)
        .zadd(redisKeys.nodes(), now + this.timing.ttlMs, this.node.id)
        .pexpire(redisKeys.nodes(), this.timing.ttlMs)
        .exec();
      if (this.failing) this.log.info('node heartbeat recorded again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log.warn({ err: (err as Error).message }, 'node heartbeat failed: this node is missing from the status until Redis answers');
      this.failing = true;
    }
  }
}

/** Every node whose record has not expired, API first, then by host and start; stale index entries are dropped. */
export async function seenNodes(redis: Redis): Promise<NodeRecord[]> {
  const ids = await redis.zrange(redisKeys.nodes(), '0', '-1');
  if (ids.length === 0) return [];
  const records = await redis.mget(ids.map((id) => redisKeys.node(id)));
  const gone = ids.filter((_, i) => records[i] === null);
  if (gone.length) await redis.zrem(redisKeys.nodes(), ...gone);
  const nodes = records.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as NodeRecord);
  return nodes.sort((a, b) => a.role.localeCompare(b.role) || a.host.localeCompare(b.host) || a.startedAt.localeCompare(b.startedAt));
}

/** Starts this process's heartbeat, at the configured interval and lifetime (config.health). */
export function startHeartbeat(
  deps: { redis: Redis; log: Logger; config: { health: { heartbeatS: number; nodeTtlS: number } } },
  role: NodeRole,
  ports: Record<string, number>,
): NodeHeartbeat {
  const { heartbeatS, nodeTtlS } = deps.config.health;
  const heartbeat = new NodeHeartbeat(deps.redis, thisNode(role, ports), { intervalMs: heartbeatS * 1000, ttlMs: nodeTtlS * 1000 }, deps.log);
  heartbeat.start();
  return heartbeat;
}
