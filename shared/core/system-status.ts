// The operator's view of a running Tern (`ternmail status`, later the platform-admin pages): versions, data
// dir and schema, Redis, each process's readiness and uptime, the SMTP listeners, the queue, the last
// domain-check round, the webhook outbox, and every API and MTA node that recorded a heartbeat in Redis. It only reads, and decides here what counts as down.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { ternVersion } from '../version.js';
import { askReadiness, processStartedAt, smtpGreets, reachableHost, type ProcessReadiness } from '../process-probe.js';
import { redisAnswers } from '../redis.js';
import type { Queue } from '../queue/queue.js';
import type { Store } from '../store/index.js';
import { lastRecordedRound, type RecordedRound } from '../verification/rounds.js';
import { seenNodes, type NodeRecord } from '../nodes.js';

export type { ProcessReadiness } from '../process-probe.js';
export type { RecordedRound } from '../verification/rounds.js';
export type { NodeRecord } from '../nodes.js';

export type ProcessName = 'api' | 'mta';

export interface ProcessStatus {
  name: ProcessName;
  /** Where it was asked: the API's own port, the MTA's metrics listener. */
  url: string;
  readiness: ProcessReadiness;
  startedAt: string | null;
  uptimeS: number | null;
}

export type ListenerName = 'submission-starttls' | 'submission-tls' | 'mx';

export interface ListenerStatus {
  name: ListenerName;
  port: number;
  up: boolean;
}

/** The last round of the automatic domain check; unknown while Redis, where it is recorded, does not answer. */
export type DomainCheckStatus = { known: true; lastRound: RecordedRound | null } | { known: false };

/** The API and MTA processes whose heartbeat has not expired; unknown while Redis, where they record it, does not answer. */
export type NodesStatus = { known: true; nodes: NodeRecord[] } | { known: false };

export interface SystemStatusReport {
  versions: { tern: string; node: string; database: string };
  dataDir: string;
  schemaVersion: number;
  redis: { up: boolean };
  processes: ProcessStatus[];
  listeners: ListenerStatus[];
  /** Recipients in the queue (in flight, and held), by state. */
  queue: Record<string, number>;
  domainCheck: DomainCheckStatus;
  nodes: NodesStatus;
  /** Webhook events waiting in the outbox. */
  webhookOutbox: number;
  /** What is down or not ready ("redis", "api", "mta", "smtp:<port>"); empty when all is well. */
  down: string[];
}

export interface SystemStatusDeps {
  config: Config;
  store: Store;
  redis: Redis;
  queue: Pick<Queue, 'depth'>;
  now?: () => number;
}

const baseUrl = (host: string, port: number) => `http://${reachableHost(host)}:${port}`;
const mtaUrl = (config: Config) => baseUrl(config.metrics.host, config.metrics.mtaPort);
/** The API serves its metrics (its start time among them) on their own listener only, when one is configured. */
const apiMetricsUrl = (config: Config) => (config.metrics.apiPort === null ? undefined : baseUrl(config.metrics.host, config.metrics.apiPort));

export class SystemStatus {
  constructor(private readonly d: SystemStatusDeps) {}

  async report(): Promise<SystemStatusReport> {
    const { config, store, queue } = this.d;
    const [database, schemaVersion, redisUp, processes, listeners, depth, webhookOutbox] = await Promise.all([
      store.system.engineVersion(),
      store.system.schemaVersion(),
      redisAnswers(this.d.redis, config.health.probeTimeoutMs),
      Promise.all([this.process('api', baseUrl(config.api.host, config.api.port), apiMetricsUrl(config)), this.process('mta', mtaUrl(config), mtaUrl(config))]),
      this.listeners(),
      queue.depth(),
      store.feedback.countPendingEvents(),
    ]);
    const domainCheck: DomainCheckStatus = redisUp ? { known: true, lastRound: await lastRecordedRound(this.d.redis) } : { known: false };
    const nodes: NodesStatus = redisUp ? { known: true, nodes: await seenNodes(this.d.redis) } : { known: false };
    const down = [
      ...(redisUp ? [] : ['redis']),
      ...processes.filter((p) => p.readiness.state !== 'ready').map((p) => p.name),
      ...listeners.filter((l) => !l.up).map((l) => `smtp:${l.port}`),
    ];
    return {
      versions: { tern: ternVersion(), node: process.version, database },
      dataDir: config.dataDir,
      schemaVersion,
      redis: { up: redisUp },
      processes,
      listeners,
      queue: depth,
      domainCheck,
      nodes,
      webhookOutbox,
      down,
    };
  }

  /** A process's readiness at `url`, and its start time from its metrics at `metricsUrl` (unknown without one). */
  private async process(name: ProcessName, url: string, metricsUrl: string | undefined): Promise<ProcessStatus> {
    // Its /readyz itself waits up to the limit for its own parts: it is given twice the limit to answer.
    const timeoutMs = 2 * this.d.config.health.probeTimeoutMs;
    const [readiness, started] = await Promise.all([askReadiness(url, timeoutMs), metricsUrl === undefined ? null : processStartedAt(metricsUrl, timeoutMs)]);
    const now = (this.d.now ?? Date.now)();
    return {
      name,
      url,
      readiness,
      startedAt: started?.toISOString() ?? null,
      uptimeS: started ? Math.max(0, Math.floor((now - started.getTime()) / 1000)) : null,
    };
  }

  /** Every SMTP port the MTA is configured to listen on (it binds every address; asked through loopback). */
  private listeners(): Promise<ListenerStatus[]> {
    const { smtp, health } = this.d.config;
    const wanted: Array<[ListenerName, number]> = [
      ...smtp.starttlsPorts.map((port): [ListenerName, number] => ['submission-starttls', port]),
      ...smtp.tlsPorts.map((port): [ListenerName, number] => ['submission-tls', port]),
      ['mx', smtp.mxPort],
    ];
    return Promise.all(
      wanted.map(async ([name, port]) => ({ name, port, up: await smtpGreets('127.0.0.1', port, { tls: name === 'submission-tls', timeoutMs: health.probeTimeoutMs }) })),
    );
  }
}
