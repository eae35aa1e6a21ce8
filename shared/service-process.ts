// How a long-running process (the API, the MTA) is run from its entry file (api/process.ts, mta/process.ts): the
// configuration loaded, started, a bind failure explained by the setting to change, and stopped on SIGTERM or
// SIGINT by its own close, once, within a guard that exits anyway before the service manager has to kill it.
import { loadConfig, type Config } from './config.js';
import { explainBindError } from './listeners.js';

/** systemd waits 35 s (TimeoutStopSec) before SIGKILL; a process still stopping after this exits on its own. */
export const STOP_GUARD_MS = 30_000;

/** On the first SIGTERM or SIGINT runs `stop`, then exits 0 (1 when it failed or outlived the guard); later signals are ignored. */
export function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), STOP_GUARD_MS).unref();
    void stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/**
 * Loads the configuration and starts the service; stops it on SIGTERM or SIGINT. A failure to start (a setting
 * refused, a port another program holds) is printed as `ternmail: …` and exits 1, as the `ternmail` command's errors.
 */
export async function runService<S extends { close(): Promise<void> }>(start: (config: Config) => Promise<S>): Promise<S | undefined> {
  return runServiceWith(
    () => ({ config: loadConfig() }),
    ({ config }) => start(config),
  );
}

/** runService for a process that runs by more than its configuration (the MTA: its retry and reply policies too). */
export async function runServiceWith<P extends { config: Config }, S extends { close(): Promise<void> }>(
  load: () => P,
  start: (loaded: P) => Promise<S>,
): Promise<S | undefined> {
  try {
    const loaded = load();
    const service = await start(loaded).catch((err: unknown) => {
      throw explainBindError(loaded.config, err);
    });
    onStop(() => service.close());
    return service;
  } catch (err) {
    process.stderr.write(`ternmail: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
