// `ternmail api`: the HTTP sidecar.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../shared/config.js';
import { openRuntime, type Runtime } from '../shared/runtime/runtime.js';
import { createApiServer, type ApiOptions } from './server.js';
import { createCore, type Core } from '../shared/core/index.js';
import { paymentProviderFrom } from './billing/index.js';
import { dnsProvidersFrom } from './dns-providers/index.js';
import { Queue } from '../shared/queue/queue.js';
import { ComposePool } from './http/send/compose-pool.js';
import { runEvery } from '../shared/periodic.js';
import { measureRecipients, RECIPIENT_GAUGE_DAYS, serveMetrics } from '../shared/metrics.js';
import { startHeartbeat } from '../shared/nodes.js';

/** How often the auth log's retention is applied: days are the unit a user chooses, an hour late is nothing. */
const AUTH_LOG_SWEEP_MS = 3_600_000;

export interface RunningApi {
  rt: Runtime;
  server: Server;
  url: string;
  /** The API's metrics listener (metrics.apiPort), when one is configured. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/** How often expired Idempotency-Key replies are removed from the database. */
const IDEMPOTENCY_SWEEP_MS = 10 * 60_000;

const listenerUrl = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The API's metrics listener, when metrics.apiPort is set. */
const metricsListener = (config: Config, health: Core['health']): Promise<Server | undefined> =>
  config.metrics.apiPort === null
    ? Promise.resolve(undefined)
    : serveMetrics(
        config.metrics.host,
        config.metrics.apiPort,
        () => health.readiness(),
        () => health.partsInUse(),
      );

export async function startApi(config: Config, runtime?: Runtime, options: ApiOptions = {}): Promise<RunningApi> {
  const rt = runtime ?? (await openRuntime(config, 'api'));
  // The API process owns the outside services' adapters and hands them to the core, which only declares their ports.
  const core = createCore(rt, new Queue(rt.store, rt.redis, rt.log), { payments: paymentProviderFrom(rt.config), dnsProviders: dnsProvidersFrom(rt.config) });
  // The API's /metrics shows the same figures as the MTA's (the store's counters, not this process's).
  measureRecipients(() => core.platformStatistics.recipients(RECIPIENT_GAUGE_DAYS));
  const composer = new ComposePool(config.api.composeWorkers);
  const server = createApiServer({ config, redis: rt.redis, log: rt.log, core, composer, secrets: rt.secrets }, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, () => resolve());
  }).catch(async (err: unknown) => {
    await composer.close();
    throw err;
  });
  const { port } = server.address() as AddressInfo;
  const url = listenerUrl(config.api.host, port);
  rt.log.info({ url }, 'api listening');
  // Metrics only on their own listener (loopback by default), as the MTA serves its own: never on the API's port.
  const metricsServer = await metricsListener(config, core.health).catch(async (err: unknown) => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await composer.close();
    throw err;
  });
  // Any number of API processes may run it: the store hands each crossing to one of them.
  const lowBalance = runEvery(config.billing.lowBalanceCheckS * 1000, 'low-balance mail', rt.log, () => core.lowBalance.sweep(rt.log));
  // Expired Idempotency-Key replies leave the database (a no-op when Redis keeps them); any API may sweep.
  const idempotencySweep = runEvery(IDEMPOTENCY_SWEEP_MS, 'idempotency sweep', rt.log, () => core.idempotency.sweep());
  // Each account's auth log kept as long as its login settings say, and spent two-step challenges; any API may sweep.
  const authLogSweep = runEvery(AUTH_LOG_SWEEP_MS, 'auth log retention', rt.log, () => core.loginSecurity.sweepRetention(rt.log));
  // Uploads for tickets that were never sent leave the database a day on; any API may sweep.
  const unsentUploads = runEvery(AUTH_LOG_SWEEP_MS, 'unsent support uploads', rt.log, () => core.supportAttachments.sweepUnsent(rt.log));
  // The daily integrity scan, when an operator turned it on: claimed in the store, so one API runs it.
  // New tickets and responses forwarded to the external helpdesk, when set: leased in the store, so any API may drain.
  const supportForwarding = runEvery(config.support.forwarding.intervalMs, 'support forwarding', rt.log, () => core.supportForwarding.drain(rt.log));
  const integrityScan = runEvery(AUTH_LOG_SWEEP_MS, 'integrity scan', rt.log, () => core.integrityScan.daily(rt.log));
  const metricsPort = metricsServer && (metricsServer.address() as AddressInfo).port;
  const heartbeat = startHeartbeat(rt, 'api', { api: port, ...(metricsPort === undefined ? {} : { metrics: metricsPort }) });
  return {
    rt,
    server,
    url,
    metricsUrl: metricsPort === undefined ? undefined : listenerUrl(config.metrics.host, metricsPort),
    async close() {
      await heartbeat.stop();
      metricsServer?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await lowBalance.stop();
      await idempotencySweep.stop();
      await authLogSweep.stop();
      await unsentUploads.stop();
      await integrityScan.stop();
      await supportForwarding.stop();
      await composer.close();
      if (!runtime) await rt.close();
    },
  };
}
