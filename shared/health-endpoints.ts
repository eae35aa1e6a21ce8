// GET /healthz and GET /readyz, answered the same on the API's port and the MTA's metrics port, before any
// authentication: a load balancer or a service manager asks them. They say which part fails, never why (no
// error text, host name or version reaches an unauthenticated caller). The metrics listeners add which store
// engine the process runs on (SQLite or PostgreSQL) and how it reaches Redis (a URL, or a Sentinel master group
// and its name), without addresses: `ternmail status` names them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from './readiness.js';
import type { RedisInUse } from './redis.js';

/** What the metrics listeners' /readyz says of the parts a process runs on, besides the verdict. */
export interface PartsInUse {
  /** The store's engine. */
  engine: 'sqlite' | 'postgresql';
  redis: RedisInUse | null;
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

function send(res: ServerResponse, status: number, body: unknown, head: boolean): void {
  const text = JSON.stringify(body);
  // Never cached: a proxy must not answer "ready" for a process that stopped being.
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(head ? undefined : text);
}

/** The body and status of a readiness verdict. */
export function readinessAnswer(readiness: Readiness): { status: 200 | 503; body: { status: 'ok' } | { status: 'unavailable'; failing: string[] } } {
  return readiness.ready ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'unavailable', failing: [...readiness.failing] } };
}

/** The engine, and how a process reaches Redis, as /readyz says them: the mode and the master group's name, never an address. */
function partsView(parts: PartsInUse): Record<string, unknown> {
  const store = { store: { engine: parts.engine } };
  const using = parts.redis;
  if (using === null) return store;
  return { ...store, redis: using.mode === 'url' ? { mode: 'url' } : { mode: 'sentinel', master_group: using.name } };
}

/**
 * Answers the request when it is GET or HEAD of /healthz or /readyz (a query string is ignored); false when it
 * is anything else, for the server's own routes. With `partsInUse` (the metrics listeners), /readyz names the
 * store's engine, so that a failing `store` says which, and how the process reaches Redis: by URL, or through the
 * sentinels of a master group.
 */
export function answerHealth(req: IncomingMessage, res: ServerResponse, readiness: () => Promise<Readiness>, partsInUse?: () => PartsInUse): boolean {
  const path = (req.url ?? '/').split('?')[0]!;
  if (!HEALTH_PATHS.has(path) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const head = req.method === 'HEAD';
  if (path === '/healthz') {
    send(res, 200, { status: 'ok' }, head);
    return true;
  }
  readiness().then(
    (verdict) => {
      const { status, body } = readinessAnswer(verdict);
      send(res, status, { ...body, ...(partsInUse ? partsView(partsInUse()) : {}) }, head);
    },
    () => send(res, 503, { status: 'unavailable', failing: [] }, head),
  );
  return true;
}
