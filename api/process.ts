// The API process's entry file: `node dist/api/process.js`, as the systemd unit and `ternmail start` run it (and
// `ternmail api`, for installs whose units still name the command). Started with the configuration it loads,
// stopped on SIGTERM or SIGINT.
import { runService } from '../shared/service-process.js';
import { startApi } from './main.js';

await runService((config) => startApi(config));
