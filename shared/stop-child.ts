// Stopping a child process: SIGTERM, so it can finish cleanly, then SIGKILL if it is still there after `graceMs`.
import type { ChildProcess } from 'node:child_process';

export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
