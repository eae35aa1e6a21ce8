// `mta.workers` above 1: the MTA as one supervising process and that many worker processes (node:cluster), so
// that the MTA uses more than one core. Each worker is a whole MTA (mta/main.ts: submission, MX, delivery, the
// report and webhook workers), as several MTAs on several machines are: they share the store, Redis (the
// schedule, the destination slots, the rate limits) and, through the cluster, the SMTP ports, whose connections
// the supervisor hands out in turn. Nothing accepted lives in a worker alone: a 250 is given after the store's
// commit, a lease a killed worker held runs out and any other worker takes the recipient over.
//
// The supervisor holds no store and no Redis. It forks the workers, restarts one that dies (a crash, kill -9),
// gives up and exits 1 when they keep dying (the service manager then restarts the whole), passes SIGHUP on
// (the TLS certificate read again), stops them all on SIGTERM, and answers the metrics port for all of them:
// /metrics summed over the workers (prom-client's AggregatorRegistry), /readyz from every worker's own verdict.
import cluster, { type Worker } from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { AggregatorRegistry } from 'prom-client';
import { answerHealth, type PartsInUse } from '../shared/health-endpoints.js';
import { READINESS_PARTS, type Readiness } from '../shared/readiness.js';
import { registry } from '../shared/metrics.js';
import { createLogger, type Logger } from '../shared/log.js';
import { onStop, STOP_GUARD_MS } from '../shared/service-process.js';
import { explainBindError } from '../shared/listeners.js';
import type { Config } from '../shared/config.js';

/** A worker that dies this many times within RESTART_WINDOW_MS makes the supervisor give up (exit 1). */
const MOST_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 1_000;
/** How long a worker has to answer the supervisor's readiness question. */
const ANSWER_MS = 2_000;

interface StartedMessage {
  type: 'tern:started';
}
interface ReadinessQuestion {
  type: 'tern:readiness?';
  id: number;
}
interface ReadinessAnswer {
  type: 'tern:readiness';
  id: number;
  readiness: Readiness;
  parts: PartsInUse;
}

const isMessage = <T extends { type: string }>(value: unknown, type: T['type']): value is T =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;

// --- in a worker ---

/**
 * A worker's side: its metrics go to the supervisor's aggregation, it answers the supervisor's readiness
 * questions, and it says once it has started (its listeners bound).
 */
export function serveSupervisor(readiness: () => Promise<Readiness>, parts: () => PartsInUse): { started(): void } {
  // prom-client answers the supervisor's requests for metrics once an AggregatorRegistry exists in the worker.
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
  process.on('message', (message: unknown) => {
    if (!isMessage<ReadinessQuestion>(message, 'tern:readiness?')) return;
    void readiness()
      .catch((): Readiness => ({ ready: false, failing: [...READINESS_PARTS] }))
      .then((verdict) => process.send?.({ type: 'tern:readiness', id: message.id, readiness: verdict, parts: parts() } satisfies ReadinessAnswer));
  });
  return { started: () => process.send?.({ type: 'tern:started' } satisfies StartedMessage) };
}

// --- the supervisor ---

/** The workers' verdicts as one: ready when every worker that answered is, with the parts any of them finds failing. */
export function combinedReadiness(answers: ReadonlyArray<Readiness | null>): Readiness {
  const given = answers.filter((a): a is Readiness => a !== null);
  if (!given.length) return { ready: false, failing: ['listeners'] };
  const failing = new Set(given.flatMap((a) => (a.ready ? [] : a.failing)));
  if (given.length < answers.length) failing.add('listeners');
  return failing.size ? { ready: false, failing: READINESS_PARTS.filter((p) => failing.has(p)) } : { ready: true };
}

class Supervisor {
  private readonly aggregator = new AggregatorRegistry();
  private readonly pending = new Map<number, (answer: ReadinessAnswer) => void>();
  private readonly deaths: number[] = [];
  private readonly indexOf = new Map<Worker, number>();
  private questions = 0;
  private stopping = false;
  private lastParts: PartsInUse | undefined;
  private metricsServer: Server | undefined;

  constructor(
    private readonly config: Config,
    private readonly count: number,
    private readonly log: Logger,
  ) {
    cluster.on('message', (_worker, message: unknown) => {
      if (isMessage<ReadinessAnswer>(message, 'tern:readiness')) this.pending.get(message.id)?.(message);
    });
  }

  /** Forks every worker and waits until each has started; one that exits first fails the start. */
  async start(): Promise<void> {
    this.metricsServer = await this.serveMetrics();
    const workers = Array.from({ length: this.count }, (_, index) => this.fork(index));
    await Promise.all(workers.map((w) => started(w)));
    for (const worker of workers) this.watch(worker);
    this.log.info({ workers: this.count, pids: workers.map((w) => w.process.pid) }, 'mta workers started');
  }

  private fork(index: number): Worker {
    const worker = cluster.fork({ TERN_MTA_WORKER: String(index) });
    this.indexOf.set(worker, index);
    return worker;
  }

  /** A worker that exits while Tern is not stopping is replaced, unless workers keep dying. */
  private watch(worker: Worker): void {
    worker.once('exit', (code, signal) => {
      const index = this.indexOf.get(worker) ?? 0;
      this.indexOf.delete(worker);
      if (this.stopping) return;
      const now = Date.now();
      this.deaths.push(now);
      while (this.deaths.length && this.deaths[0]! < now - RESTART_WINDOW_MS) this.deaths.shift();
      this.log.error({ worker: index, pid: worker.process.pid, code, signal }, 'an mta worker exited');
      if (this.deaths.length > MOST_RESTARTS) {
        this.log.fatal({ deaths: this.deaths.length, windowS: RESTART_WINDOW_MS / 1000 }, 'mta workers keep exiting: stopping');
        void this.stop().finally(() => process.exit(1));
        return;
      }
      setTimeout(() => this.replace(index), RESTART_DELAY_MS).unref();
    });
  }

  /** A new worker in a dead one's place; if it dies too, its watch counts it and replaces it in turn. */
  private replace(index: number): void {
    if (this.stopping) return;
    const worker = this.fork(index);
    this.watch(worker);
    started(worker).then(
      () => this.log.info({ worker: index, pid: worker.process.pid }, 'mta worker restarted'),
      () => undefined,
    );
  }

  /** What the workers run on as the configuration names it, until one has said it (none answered yet). */
  private configuredParts(): PartsInUse {
    return { engine: this.config.databaseUrl ? 'postgresql' : 'sqlite', redis: null };
  }

  /** Every live worker's verdict (null for one that did not answer in time). */
  private async readiness(): Promise<Readiness> {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
    const answers = await Promise.all(workers.map((w) => this.ask(w)));
    this.lastParts = answers.find((a) => a !== null)?.parts ?? this.lastParts;
    return combinedReadiness(workers.length ? answers.map((a) => a?.readiness ?? null) : []);
  }

  private ask(worker: Worker): Promise<ReadinessAnswer | null> {
    const id = ++this.questions;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(null);
      }, ANSWER_MS);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(answer);
      });
      worker.send({ type: 'tern:readiness?', id } satisfies ReadinessQuestion);
    });
  }

  private async serveMetrics(): Promise<Server> {
    const { host, mtaPort } = this.config.metrics;
    const server = createServer((req, res) => {
      if (
        answerHealth(
          req,
          res,
          () => this.readiness(),
          () => this.lastParts ?? this.configuredParts(),
        )
      )
        return;
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      this.aggregator.clusterMetrics().then(
        (body) => res.writeHead(200, { 'Content-Type': this.aggregator.contentType }).end(body),
        (err: unknown) => {
          // prom-client rejects when a worker reports an error or misses its deadline: say which, once per scrape.
          this.log.warn({ err }, 'a metrics scrape of the mta workers failed');
          res.writeHead(503).end();
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        const explained = explainBindError(this.config, err);
        reject(explained instanceof Error ? explained : err);
      });
      server.listen(mtaPort, host, () => resolve());
    });
    return server;
  }

  /** Passes a signal to every worker (SIGHUP: read the TLS certificate again). */
  signalWorkers(signal: NodeJS.Signals): void {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  }

  /** Stops every worker (each closes as a lone MTA does on SIGTERM), then the metrics listener. */
  async stop(): Promise<void> {
    this.stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    const exited = workers.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const worker of workers) worker.process.kill('SIGTERM');
    const guard = setTimeout(() => workers.forEach((w) => w.process.kill('SIGKILL')), STOP_GUARD_MS - 5_000);
    await Promise.all(exited);
    clearTimeout(guard);
    await new Promise<void>((resolve) => (this.metricsServer ? this.metricsServer.close(() => resolve()) : resolve()));
  }
}

/** Resolves when the worker says it has started; rejects when it exits first. */
function started(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`an mta worker exited (${code ?? 'killed'}) before it started`));
    worker.once('exit', onExit);
    worker.on('message', (message: unknown) => {
      if (!isMessage<StartedMessage>(message, 'tern:started')) return;
      worker.off('exit', onExit);
      resolve();
    });
  });
}

/**
 * Runs the supervisor of `count` workers: started (or exit 1, the workers stopped, when one cannot start: the
 * worker has said why on stderr), then stopped on SIGTERM or SIGINT, SIGHUP passed on.
 */
export async function superviseWorkers(config: Config, count: number): Promise<void> {
  const log = createLogger('mta-supervisor', config.log.level);
  const supervisor = new Supervisor(config, count, log);
  onStop(() => supervisor.stop());
  process.on('SIGHUP', () => supervisor.signalWorkers('SIGHUP'));
  try {
    await supervisor.start();
  } catch (err) {
    process.stderr.write(`ternmail: ${(err as Error).message}\n`);
    await supervisor.stop().catch(() => undefined);
    process.exit(1);
  }
}
