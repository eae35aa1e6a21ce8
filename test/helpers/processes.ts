// A whole Tern deployment as separate processes, for tests that kill parts of it: the harness's deployment
// (real Redis, loopback DNS, `ternmail mta` / `ternmail api` from dist/; rebuild first) delivering to an
// in-process MX sink that the test controls.
import { startDeployment as startHarnessDeployment, type CloseOptions, type Deployment as HarnessDeployment } from '../harness/deployment.js';
import { startSink, type Sink } from './sink.js';

export type { ExtraNode, Sender } from '../harness/deployment.js';

export interface Deployment extends HarnessDeployment {
  sink: Sink;
}

export interface DeploymentOptions {
  /** Written to the config file named by TERNMAIL_CONFIG. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Run on this PostgreSQL database (TERNMAIL_DATABASE_URL) instead of SQLite in the data dir. */
  databaseUrl?: string;
  /** Tern's output goes to <dataDir>/<role>.log (see the harness). */
  logToFiles?: boolean;
}

export async function startDeployment(options: DeploymentOptions = {}): Promise<Deployment> {
  const sink = await startSink();
  let deployment: HarnessDeployment;
  try {
    deployment = await startHarnessDeployment({ ...options, remotePort: sink.port });
  } catch (err) {
    await sink.close();
    throw err;
  }
  const close = deployment.close.bind(deployment);
  return Object.assign(deployment, {
    sink,
    async close(o?: CloseOptions) {
      await close(o);
      await sink.close();
    },
  });
}
