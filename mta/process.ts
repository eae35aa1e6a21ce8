// The MTA process's entry file: `node dist/mta/process.js`, as the systemd unit and `ternmail start` run it (and
// `ternmail mta`, for installs whose units still name the command). Started with the policies it loads,
// stopped on SIGTERM or SIGINT; SIGHUP reads its TLS certificate again (after a renewal). With `mta.workers`
// above 1 this process supervises that many workers (mta/workers.ts), each of which runs this file again as a
// cluster worker and is a whole MTA.
import cluster from 'node:cluster';
import { runServiceWith } from '../shared/service-process.js';
import { loadPolicies } from '../shared/policies/index.js';
import { loadConfig } from '../shared/config.js';
import { startMta } from './main.js';
import { superviseWorkers } from './workers.js';

/** The workers this process is to supervise, or 0 when it is to be the MTA itself (one worker, or a worker). */
function workersToSupervise(): number {
  if (cluster.isWorker) return 0;
  try {
    const { workers } = loadConfig().mta;
    return workers > 1 ? workers : 0;
  } catch {
    return 0; // the configuration's error is reported by the start below, as ever
  }
}

const workers = workersToSupervise();
if (workers) {
  // Every policy is validated here once, so a broken one stops the start with one message, not one per worker.
  const policies = (() => {
    try {
      return loadPolicies();
    } catch (err) {
      process.stderr.write(`ternmail: ${(err as Error).message}\n`);
      process.exit(1);
    }
  })();
  await superviseWorkers(policies.config, workers);
} else {
  // The configuration, the retry policy and the reply rules, each validated once before anything starts.
  const mta = await runServiceWith(loadPolicies, (policies) => startMta(policies));
  process.on('SIGHUP', () => {
    mta?.reloadTls();
    mta?.rt.log.info('TLS certificate reloaded');
  });
}
