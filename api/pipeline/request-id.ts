// One id per HTTP request: a sane incoming X-Request-Id is kept, anything else is replaced by a fresh UUID.
// It is set on the response first thing, so every answer carries it (404s and body errors included), and
// the request's logger is bound to it, so every line the HTTP layer writes for the request can be found.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../shared/log.js';

/** What a client may choose as its own id: short, and nothing that could forge a log field or a header. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

const ids = new WeakMap<IncomingMessage, string>();

/** The request's id, chosen and set on the response on the first call; later calls return the same one. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  let id = ids.get(req);
  if (id === undefined) {
    const incoming = req.headers['x-request-id'];
    id = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
    ids.set(req, id);
    res.setHeader('X-Request-Id', id);
  }
  return id;
}

/** A child of the process's logger bound to the request's id (req_id) and any other bindings (the route). */
export function requestLog(log: Logger, req: IncomingMessage, res: ServerResponse, bindings: Record<string, string> = {}): Logger {
  return log.child({ req_id: requestIdOf(req, res), ...bindings });
}
