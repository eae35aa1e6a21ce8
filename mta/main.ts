// `ternmail mta`: the mail transfer agent. It runs the automatic domain verification, the delivery
// scheduler and (with submission.ts) the SMTP submission listeners.
import { inboundSpoolDir } from '../shared/data-dir.js';
import type { Config } from '../shared/config.js';
import type { Policies } from '../shared/policies/index.js';
import type { ReplyRules } from '../shared/policies/smtp-replies.js';
import type { RetryPolicy } from '../shared/policies/retry.js';
import type { Resolver } from 'node:dns/promises';
import { createResolver } from '../shared/dns.js';
import { openRuntime, type Runtime } from '../shared/runtime/runtime.js';
import { ensureTlsCertificate, readTls, type TlsFiles } from '../shared/tls.js';
import { importSpool } from './feedback/spool-import.js';
import { DomainVerifier } from './verification/verify-domains.js';
import { MxResolver } from './delivery/mx.js';
import { DkimKeyCache } from './delivery/dkim.js';
import { MessagePreparer } from './delivery/prepare.js';
import { ConnectionCache } from './delivery/connection-cache.js';
import { Scheduler } from './delivery/scheduler.js';
import { DestinationSlots } from './delivery/destination-slots.js';
import type { DeliveryMaterial } from '../shared/core/delivery-material.js';
import { createCore, MTA_ADAPTERS, type Core } from '../shared/core/index.js';
import { Queue } from '../shared/queue/queue.js';
import { SubmissionListener } from './smtp/submission.js';
import { MxListener } from './feedback/inbound.js';
import { ReportWorker } from './feedback/report-worker.js';
import { Outcomes } from './outcomes/outcome.js';
import { Reputation } from './outcomes/reputation.js';
import { WebhookDispatcher } from './feedback/webhooks.js';
import { startHeartbeat, type NodeHeartbeat } from '../shared/nodes.js';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { measureQueueDepth, measureRecipients, RECIPIENT_GAUGE_DAYS, serveMetrics } from '../shared/metrics.js';
import { serveSupervisor } from './workers.js';

export interface RunningMta {
  rt: Runtime;
  verifier: DomainVerifier;
  queue: Queue;
  scheduler: Scheduler;
  core: Core;
  outcomes: Outcomes;
  submission: SubmissionListener;
  mx: MxListener;
  reports: ReportWorker;
  /** Reads the TLS certificate again (SIGHUP). */
  reloadTls(): void;
  close(): Promise<void>;
}

interface SchedulerParts {
  queue: Queue;
  outcomes: Outcomes;
  resolver: Resolver;
  connections: ConnectionCache;
  retry: RetryPolicy;
  replies: ReplyRules;
  material: DeliveryMaterial;
}

/** The delivery scheduler: messages prepared and DKIM-signed, delivered to the recipient domains' MX hosts. */
function createScheduler(rt: Runtime, config: Config, { queue, outcomes, resolver, connections, retry, replies, material }: SchedulerParts): Scheduler {
  return new Scheduler({
    outcomes,
    rt,
    queue,
    preparer: new MessagePreparer(material, new DkimKeyCache(rt.secrets)),
    retry,
    verpSecret: rt.secrets.derive('verp'),
    deliver: {
      mx: new MxResolver(resolver),
      port: config.delivery.remotePort,
      connectTimeoutMs: config.delivery.connectTimeoutS * 1000,
      socketTimeoutMs: config.delivery.socketTimeoutS * 1000,
      connections,
      replies,
    },
    slots: new DestinationSlots({ redis: rt.redis, log: rt.log, leaseMs: config.delivery.destinationSlotLeaseS * 1000 }),
    sendingPoolFor: (teamId) => material.sendingIdentity(teamId),
  });
}

/**
 * Reports on the MX port, kept in the store with their bodies and applied by the worker (which first finishes
 * what a crash left). A spool directory left by an earlier release is imported into the store first.
 */
async function startReports(rt: Runtime, { config, replies }: Policies, outcomes: Outcomes, tlsFiles: TlsFiles): Promise<{ reports: ReportWorker; mx: MxListener }> {
  const imported = await importSpool(rt.store.feedback, inboundSpoolDir(config.dataDir));
  if (imported) rt.log.info({ ...imported, dir: inboundSpoolDir(config.dataDir) }, 'inbound report spool of an earlier release imported into the store');
  const reports = new ReportWorker({ rt, outcomes, replies, verpSecret: rt.secrets.derive('verp') });
  const mx = new MxListener({ rt, tls: readTls(tlsFiles), verpSecret: rt.secrets.derive('verp'), onReport: () => reports.wake() });
  await reports.start();
  await mx.listen();
  return { reports, mx };
}

/** The MTA's heartbeat, naming its SMTP listeners and its metrics listener (a worker's is its supervisor's). */
function mtaHeartbeat(rt: Runtime, metricsServer: Server | null): NodeHeartbeat {
  const { smtp } = rt.config;
  const metricsPort = metricsServer ? (metricsServer.address() as AddressInfo).port : rt.config.metrics.mtaPort;
  const ports: Record<string, number> = { metrics: metricsPort, mx: smtp.mxPort };
  smtp.starttlsPorts.forEach((port, i) => (ports[i === 0 ? 'submission-starttls' : `submission-starttls-${i + 1}`] = port));
  smtp.tlsPorts.forEach((port, i) => (ports[i === 0 ? 'submission-tls' : `submission-tls-${i + 1}`] = port));
  return startHeartbeat(rt, 'mta', ports);
}

/** The gauges read on each scrape: the queue's depth, and the recipients of the last days by status. */
function measureQueueAndFigures(queue: Queue, core: Core): void {
  measureQueueDepth(() => queue.depth());
  measureRecipients(() => core.platformStatistics.recipients(RECIPIENT_GAUGE_DAYS));
}

/** `policies` were loaded and validated once (shared/policies): a broken policy file stopped the start before this. */
export async function startMta(policies: Policies, runtime?: Runtime): Promise<RunningMta> {
  const { config, retry, replies } = policies;
  const rt = runtime ?? (await openRuntime(config, 'mta'));
  const tlsFiles = await ensureTlsCertificate(config);
  const resolver = createResolver(config.dnsServers);
  const verifier = new DomainVerifier(rt, resolver);
  const wakers: Array<() => void> = [];
  const webhooks = new WebhookDispatcher({ rt, resolver, caFile: config.webhooks.caFile ?? undefined });
  wakers.push(() => webhooks.wake());
  const outcomes = new Outcomes({ rt, reputation: new Reputation(rt, config.reputation), wake: () => wakers.forEach((wake) => wake()) });
  const connections = new ConnectionCache();
  const queue = new Queue(rt.store, rt.redis, rt.log);
  // No card payments nor DNS providers in the MTA.
  const core = createCore(rt, queue, MTA_ADAPTERS, { deliversHere: true });
  const scheduler = createScheduler(rt, config, { queue, outcomes, resolver, connections, retry, replies, material: core.deliveryMaterial });
  measureQueueAndFigures(queue, core);
  const submission = new SubmissionListener(rt, core, readTls(tlsFiles));
  // Ready once the store, Redis and every SMTP listener answer; until the listeners are up, /readyz names them.
  let mxListener: MxListener | null = null;
  const listening = () => Promise.resolve(submission.listening() && (mxListener?.listening() ?? false));
  const readiness = () => core.health.readiness({ listeners: listening });
  // A worker of several (mta/workers.ts) leaves the metrics port to its supervisor and answers it instead.
  const supervisor = cluster.isWorker ? serveSupervisor(readiness, () => core.health.partsInUse()) : null;
  const metricsServer = supervisor ? null : await serveMetrics(config.metrics.host, config.metrics.mtaPort, readiness, () => core.health.partsInUse());
  await submission.listen();
  const { reports, mx } = await startReports(rt, policies, outcomes, tlsFiles);
  mxListener = mx;
  verifier.start();
  await scheduler.start();
  webhooks.start();
  const heartbeat = mtaHeartbeat(rt, metricsServer);
  supervisor?.started();
  rt.log.info({ verifyIntervalS: config.verify.intervalS, dnsServers: config.dnsServers, remotePort: config.delivery.remotePort }, 'mta started');
  return {
    rt,
    verifier,
    queue,
    scheduler,
    core,
    outcomes,
    submission,
    mx,
    reports,
    reloadTls: () => {
      submission.reloadCertificate(readTls(tlsFiles));
      mx.reloadCertificate(readTls(tlsFiles));
    },
    async close() {
      await heartbeat.stop();
      metricsServer?.close();
      await submission.close();
      await mx.close();
      await reports.stop();
      await verifier.stop();
      await scheduler.stop();
      connections.closeAll();
      await webhooks.stop();
      if (!runtime) await rt.close();
    },
  };
}
