// The ports the API and MTA processes listen on, each with the setting that chooses it, so that a port another
// program holds is reported by the name an operator can change: by `ternmail start` before anything is created,
// and by each process (api/process.ts, mta/process.ts) when its own bind fails.
import { createServer } from 'node:net';
import type { Config } from './config.js';

export interface ListenerSetting {
  /** The environment variable an operator sets to move it. */
  setting: string;
  host: string;
  port: number;
}

const SMTP_HOST = '0.0.0.0';

/** The API's, the SMTP listeners' and the metrics ports, as configured (port 0, "any free port", is left out). */
export function configuredListeners(config: Config): ListenerSetting[] {
  const all: ListenerSetting[] = [
    { setting: 'TERNMAIL_API_PORT', host: config.api.host, port: config.api.port },
    // The SMTP listeners take every address (smtp/submission.ts, feedback/inbound.ts).
    ...config.smtp.starttlsPorts.map((port) => ({ setting: 'TERNMAIL_SMTP_STARTTLS_PORTS', host: SMTP_HOST, port })),
    ...config.smtp.tlsPorts.map((port) => ({ setting: 'TERNMAIL_SMTP_TLS_PORTS', host: SMTP_HOST, port })),
    { setting: 'TERNMAIL_MX_PORT', host: SMTP_HOST, port: config.smtp.mxPort },
    { setting: 'TERNMAIL_METRICS_PORT', host: config.metrics.host, port: config.metrics.mtaPort },
    // The API's metrics listener only when an operator asked for one (metrics.apiPort, off by default).
    ...(config.metrics.apiPort === null ? [] : [{ setting: 'TERNMAIL_API_METRICS_PORT', host: config.metrics.host, port: config.metrics.apiPort }]),
  ];
  return all.filter((l) => l.port !== 0);
}

/** The operator's sentence for a listener that cannot bind: the port, why, and the setting to change. */
export function bindProblem(l: ListenerSetting, err: NodeJS.ErrnoException): string {
  const why =
    err.code === 'EADDRINUSE'
      ? 'is already in use by another program'
      : err.code === 'EACCES'
        ? 'may not be used by this user'
        : `cannot be used (${err.code ?? err.message})`;
  return `port ${l.port} on ${l.host} ${why}: stop that program or set ${l.setting} to a free port`;
}

/** A process's bind failure (`ternmail api` or `mta` alone, or a port taken after start's probe) as bindProblem's
 * sentence, found by the port Node names in the error; any other error unchanged. */
export function explainBindError(config: Config, err: unknown): unknown {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e.code !== 'EADDRINUSE' && e.code !== 'EACCES') return err;
  const l = configuredListeners(config).find((c) => c.port === e.port);
  return l ? new Error(bindProblem(l, e)) : err;
}

function tryBind(l: ListenerSetting): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(bindProblem(l, err)));
    // exclusive: a cluster worker's shared handle would hide a port held by another program.
    server.listen({ port: l.port, host: l.host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/**
 * Binds every configured listener once and lets it go: each port another program holds, as a sentence. `start`
 * asks before it creates the data dir, an account or a key, so a busy port leaves nothing behind. The children
 * bind again moments later; a port taken in between still fails their start, with the same sentence.
 */
export async function busyListeners(config: Config): Promise<string[]> {
  const problems: string[] = [];
  // One after the other: the same port named twice (a typo) is then found as busy by its second bind.
  for (const l of configuredListeners(config)) {
    const problem = await tryBind(l);
    if (problem) problems.push(problem);
  }
  return problems;
}
