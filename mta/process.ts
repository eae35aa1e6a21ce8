// The MTA process's entry file: `node dist/mta/process.js`, as the systemd unit and `ternmail start` run it (and
// `ternmail mta`, for installs whose units still name the command). Started with the configuration it loads,
// stopped on SIGTERM or SIGINT; SIGHUP reads its TLS certificate again (after a renewal).
import { runService } from '../shared/service-process.js';
import { startMta } from './main.js';

const mta = await runService((config) => startMta(config));
process.on('SIGHUP', () => {
  mta?.reloadTls();
  mta?.rt.log.info('TLS certificate reloaded');
});
