// `ternmail api`: the HTTP sidecar.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../shared/config.js';
import { openRuntime, type Runtime } from '../shared/runtime.js';
import { createApiServer, type ApiOptions } from '../http/server.js';
import { createCore } from '../core/index.js';
import { Queue } from '../queue/queue.js';
import { ComposePool } from '../http/send/compose-pool.js';
import { runEvery } from '../shared/periodic.js';
import { measureRecipients, RECIPIENT_GAUGE_DAYS } from '../shared/metrics.js';

export interface RunningApi {
  rt: Runtime;
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApi(config: Config, runtime?: Runtime, options: ApiOptions = {}): Promise<RunningApi> {
  const rt = runtime ?? (await openRuntime(config, 'api'));
  const core = createCore(rt, new Queue(rt.store, rt.redis, rt.log));
  // The API's /metrics shows the same figures as the MTA's (the store's counters, not this process's).
  measureRecipients(() => core.platformStatistics.recipients(RECIPIENT_GAUGE_DAYS));
  const composer = new ComposePool(config.api.composeWorkers);
  const server = createApiServer({ config, redis: rt.redis, log: rt.log, core, composer }, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, () => resolve());
  }).catch(async (err: unknown) => {
    await composer.close();
    throw err;
  });
  const { port } = server.address() as AddressInfo;
  const host = config.api.host.includes(':') ? `[${config.api.host}]` : config.api.host;
  const url = `http://${host}:${port}`;
  rt.log.info({ url }, 'api listening');
  // Any number of API processes may run it: the store hands each crossing to one of them.
  const lowBalance = runEvery(config.billing.lowBalanceCheckS * 1000, 'low-balance mail', rt.log, () => core.lowBalance.sweep(rt.log));
  return {
    rt,
    server,
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await lowBalance.stop();
      await composer.close();
      if (!runtime) await rt.close();
    },
  };
}
