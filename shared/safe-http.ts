// Outbound HTTP to URLs our users choose (webhooks, support forwarding). The host is resolved with our own resolver at the
// moment of delivery and refused when any address is not public, then the connection goes to the checked
// address itself, so a DNS answer that changes between the check and the connect (rebinding) cannot
// point the request at our network. Redirects are never followed; the whole attempt has one deadline;
// at most a small part of the response is read.
import type { Resolver } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { resolveTarget, type PinnedAddress, type Resolution } from './public-address.js';

export type PostOutcome = { kind: 'response'; statusCode: number; error: string | null } | { kind: 'refused'; reason: string } | { kind: 'error'; reason: string };

export interface SafePost {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Covers resolution, connection and the response headers. */
  timeoutMs: number;
  /** Deliver to private addresses too (TERNMAIL_WEBHOOK_ALLOW_PRIVATE): tests and closed networks only. */
  allowPrivate: boolean;
  /** Replaces the trusted CAs for https (the caller adds the system roots when it wants them). */
  ca?: readonly string[];
  /** Response bytes read before the connection is dropped. */
  maxResponseBytes?: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/** A lookup that answers with the checked address whatever name it is asked (both callback forms). */
function pinnedLookup(target: PinnedAddress): NonNullable<RequestOptions['lookup']> {
  return (_host: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    // Asynchronously, as dns.lookup does: called back synchronously, net throws a synchronous connect
    // failure (ENETUNREACH: an IPv6 address on an IPv4-only host) as an uncaught exception.
    process.nextTick(() => {
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    });
  };
}

/** Reads at most `limit` bytes, then drops the connection; calls `done` once either way. */
function drain(res: IncomingMessage, limit: number, done: () => void): void {
  let seen = 0;
  res.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen >= limit) res.destroy();
  });
  res.on('error', done);
  res.on('close', done);
  res.on('end', done);
}

function describe(res: IncomingMessage): string | null {
  const status = res.statusCode ?? 0;
  if (status < 300 || status >= 400) return null;
  const location = String(res.headers.location ?? '').slice(0, 200);
  return `redirect not followed${location ? ` (location: ${location})` : ''}`;
}

/** One POST to the pinned address. Settles when the response headers arrive (or on error/deadline). */
function postTo(url: URL, target: PinnedAddress, o: SafePost, msLeft: number): Promise<PostOutcome> {
  const https = url.protocol === 'https:';
  const options: RequestOptions & { servername?: string; ca?: string[] } = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (https ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
    lookup: pinnedLookup(target),
    // A fresh connection each time: a pooled socket may have been opened to an address checked earlier.
    agent: false,
  };
  if (https && o.ca) options.ca = [...o.ca];
  // Credentials in the URL (https://user:pass@host/…) are a common way to authenticate receivers.
  if (url.username || url.password) options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (!settled) resolve(outcome);
      settled = true;
    };
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      settle({ kind: 'response', statusCode: res.statusCode ?? 0, error: describe(res) });
      drain(res, o.maxResponseBytes ?? MAX_RESPONSE_BYTES, () => finish());
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${Math.round(o.timeoutMs / 1000)} s`)), msLeft);
    const finish = () => {
      clearTimeout(timer);
      req.destroy();
    };
    req.on('error', (err: Error) => {
      finish();
      settle({ kind: 'error', reason: err.message || String(err) });
    });
    req.end(o.body);
  });
}

/** Resolution raced against what is left of the deadline (the resolver has its own, longer, timeouts). */
function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${Math.round(ms / 1000)} s (${what})`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Resolves, checks and POSTs within one deadline. Never throws: every failure is an outcome to record. */
export async function safePost(resolver: Resolver, o: SafePost): Promise<PostOutcome> {
  const started = Date.now();
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return { kind: 'error', reason: 'invalid url' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'error', reason: `unsupported scheme ${url.protocol}` };
  let resolution: Resolution;
  try {
    resolution = await withDeadline(resolveTarget(resolver, url.hostname.replace(/^\[|\]$/g, ''), o.allowPrivate), o.timeoutMs, 'resolving');
  } catch (err) {
    return { kind: 'error', reason: `dns: ${(err as Error).message}` };
  }
  if (!resolution.ok) return { kind: 'refused', reason: resolution.reason };
  return postTo(url, resolution.target, o, Math.max(1, o.timeoutMs - (Date.now() - started)));
}
