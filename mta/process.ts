// The MTA process's entry file: `node dist/mta/process.js`, as the systemd unit and `ternmail start` run it (and
// `ternmail mta`, for installs whose units still name the command). Started with the policies it loads,
// stopped on SIGTERM or SIGINT; SIGHUP reads its TLS certificate again (after a renewal).
import { runServiceWith } from '../shared/service-process.js';
import { loadPolicies } from '../shared/policies/index.js';
import { startMta } from './main.js';

// The configuration, the retry policy and the reply rules, each validated once before anything starts.
const mta = await runServiceWith(loadPolicies, (policies) => startMta(policies));
process.on('SIGHUP', () => {
  mta?.reloadTls();
  mta?.rt.log.info('TLS certificate reloaded');
});
