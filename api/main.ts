// `ternmail api`: the HTTP sidecar.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../shared/config.js';
import { openRuntime, type Runtime } from '../shared/runtime.js';
import { createApiServer } from './server.js';
import { Intake } from '../mta/intake.js';
import { DisposableFilter } from '../shared/disposable.js';

export interface RunningApi {
  rt: Runtime;
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApi(config: Config, runtime?: Runtime): Promise<RunningApi> {
  const rt = runtime ?? (await openRuntime(config, 'api'));
  const intake = new Intake(rt.store, rt.redis, new DisposableFilter(config.disposableDomains), rt.log);
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
      if (!runtime) await rt.close();
    },
  };
}
