// `ternmail api`: the HTTP sidecar.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../shared/config.js';
import { openRuntime, type Runtime } from '../shared/runtime.js';
import { createApiServer } from './server.js';
import { Intake } from '../mta/intake.js';
import { Spool } from '../shared/spool.js';
import { DisposableFilter } from '../shared/disposable.js';
import { join } from 'node:path';

export interface RunningApi {
  rt: Runtime;
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApi(config: Config, runtime?: Runtime): Promise<RunningApi> {
  const rt = runtime ?? (await openRuntime(config, 'api'));
  const spool = new Spool(join(config.dataDir, 'spool'));
  const intake = new Intake(rt.store, spool, rt.redis, new DisposableFilter(config.disposableDomains), rt.log);
  const server = createApiServer({ ...rt, intake });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.api.host.includes(':') ? `[${config.api.host}]` : config.api.host;
  const url = `http://${host}:${port}`;
  rt.log.info({ url }, 'api listening');
  return {
    rt,
    server,
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      spool.close();
      if (!runtime) await rt.close();
    },
  };
}
