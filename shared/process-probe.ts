// Asks Tern's running processes from outside, as `ternmail status` does: whether an SMTP listener greets,
// what a process's /readyz says, and when it started (the standard process start-time gauge its /metrics
// already serves). Every question has a time limit; no answer is an answer.
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { READINESS_PARTS, type ReadinessPart } from './readiness.js';

/** What a process's /readyz said: ready, up but with failing parts, or no answer at all. */
export type ProcessReadiness = { state: 'ready' } | { state: 'unready'; failing: ReadinessPart[] } | { state: 'down' };

/** prom-client's process_start_time_seconds under the prefix shared/metrics.ts gives the default metrics. */
const START_TIME = /^tern_process_process_start_time_seconds(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/m;

/** A listen address as a client reaches it: a wildcard is reached through loopback; IPv6 in brackets. */
export function reachableHost(host: string): string {
  const reached = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return reached.includes(':') ? `[${reached}]` : reached;
}

/**
 * Whether an SMTP listener greets (220) within `timeoutMs`, over implicit TLS when `tls`; the probe then says QUIT,
 * so the listener sees a whole, polite session rather than a dropped connection to log.
 */
export function smtpGreets(host: string, port: number, o: { tls: boolean; timeoutMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const target = { host: host.replace(/^\[|\]$/g, ''), port };
    // Any certificate: the question is whether the listener answers, not whom it claims to be.
    const socket = o.tls ? tlsConnect({ ...target, rejectUnauthorized: false }) : connect(target);
    // Whatever happens after the verdict, the socket goes within the limit.
    socket.setTimeout(o.timeoutMs, () => socket.destroy());
    let greeting = '';
    let settled = false;
    const settle = (up: boolean) => {
      if (settled) return;
      settled = true;
      if (up) socket.end('QUIT\r\n');
      else socket.destroy();
      resolve(up);
    };
    socket.on('data', (chunk: Buffer) => {
      greeting += chunk.toString('latin1');
      if (greeting.includes('\n')) settle(greeting.startsWith('220'));
    });
    socket.once('timeout', () => settle(false));
    socket.on('error', () => settle(false));
    socket.once('close', () => settle(false));
  });
}

const isPart = (v: unknown): v is ReadinessPart => READINESS_PARTS.includes(v as ReadinessPart);

/** GET `${base}/readyz`: 200 ready, 503 with the failing parts, anything else (or nothing) down. */
export async function askReadiness(base: string, timeoutMs: number): Promise<ProcessReadiness> {
  try {
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { failing?: unknown };
    if (res.status === 200) return { state: 'ready' };
    if (res.status === 503 && Array.isArray(body.failing)) return { state: 'unready', failing: body.failing.filter(isPart) };
    return { state: 'down' };
  } catch {
    return { state: 'down' };
  }
}

/** When the process answering at `base` started (its /metrics), or null when it does not say. */
export async function processStartedAt(base: string, timeoutMs: number): Promise<Date | null> {
  try {
    const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
    const seconds = res.ok ? START_TIME.exec(await res.text())?.[1] : undefined;
    return seconds === undefined ? null : new Date(Number(seconds) * 1000);
  } catch {
    return null;
  }
}
