// A job run every interval in the background of a process, one run at a time (a run that outlasts the interval
// delays the next one instead of overlapping it); stopping waits for the run under way.
import type { Logger } from './log.js';

export interface Periodic {
  stop(): Promise<void>;
}

export function runEvery(intervalMs: number, name: string, log: Logger, job: () => Promise<unknown>): Periodic {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = job()
        .then(() => undefined)
        .catch((err: Error) => log.error({ err: err.message, job: name }, 'periodic job failed'))
        .finally(schedule);
    }, intervalMs);
    // The job never keeps a process alive on its own.
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
