// Outbound HTTP to URLs our users choose (webhooks, support forwarding). The host is resolved with our own resolver at the
// moment of delivery and refused when any address is not public, then the connection goes to the checked
// address itself, so a DNS answer that changes between the check and the connect (rebinding) cannot
// point the request at our network. POSTs never follow redirects (safeGet below follows them by hand, each hop
// checked again); the whole attempt has one deadline;
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

// GETs of pages our users name (oEmbed's proxy, the block editor's url-details), by WordPress's
// wp_safe_remote_get rules: http or https only, no user:pass in the URL, ports 80, 443 and 8080 only, every address
// of the host public (checked after resolving, the connection pinned to it), redirects followed by hand with each
// hop checked again, at most `maxBytes` of the body kept, and one deadline over the whole chain.

/** The ports wp_http_validate_url admits. */
export const FETCH_PORTS: readonly number[] = [80, 443, 8080];

export interface SafeGet {
  url: string;
  headers?: Record<string, string>;
  /** Covers every hop: resolution, connection, redirects and the body. */
  timeoutMs: number;
  /** Body bytes kept; the rest is cut (the answer says `truncated`), as limit_response_size. */
  maxBytes: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /**
   * `host:port` pairs exempt from the port and address rules (urlFetch.allowHosts: tests and closed networks).
   * Only the exact pair is exempt: a redirect from it to any other host or port is checked as any URL is.
   */
  allowHosts?: readonly string[];
  /** Replaces the trusted CAs for https. */
  ca?: readonly string[];
}

export type GetOutcome =
  | { kind: 'response'; url: string; statusCode: number; contentType: string; body: Buffer; truncated: boolean }
  | { kind: 'refused'; reason: string }
  | { kind: 'error'; reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Why a URL may not be fetched before anything is resolved (scheme, user info, port), or null. */
export function fetchUrlProblem(url: URL, exempt: boolean): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `unsupported scheme ${url.protocol}`;
  if (url.username || url.password) return 'user information in the URL';
  if (!exempt && !FETCH_PORTS.includes(portOf(url))) return `port ${portOf(url)} is not one of ${FETCH_PORTS.join(', ')}`;
  return null;
}

const isExempt = (url: URL, allowHosts: readonly string[] = []): boolean => allowHosts.includes(`${bareHost(url)}:${portOf(url)}`.toLowerCase());

interface Hop {
  statusCode: number;
  location: string | null;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

/** One GET to the pinned address; reads the body (unless a redirect) up to maxBytes; rejects on error or deadline. */
function getFrom(url: URL, target: PinnedAddress, o: SafeGet, msLeft: number): Promise<Hop> {
  const https = url.protocol === 'https:';
  const options: RequestOptions & { servername?: string; ca?: string[] } = {
    method: 'GET',
    hostname: bareHost(url),
    port: portOf(url),
    path: `${url.pathname}${url.search}`,
    headers: { ...o.headers, 'accept-encoding': 'identity' },
    lookup: pinnedLookup(target),
    agent: false,
  };
  if (https && o.ca) options.ca = [...o.ca];
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      const statusCode = res.statusCode ?? 0;
      const location = REDIRECTS.has(statusCode) ? String(res.headers.location ?? '') || null : null;
      const contentType = String(res.headers['content-type'] ?? '');
      if (location !== null) {
        finish();
        resolve({ statusCode, location, contentType, body: Buffer.alloc(0), truncated: false });
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = o.maxBytes - kept;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          kept += room;
          // Past the limit: the rest is never read (a body without end cannot hold the connection).
          truncated = true;
          finish();
          resolve({ statusCode, location, contentType, body: Buffer.concat(chunks), truncated });
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      res.on('end', () => {
        finish();
        resolve({ statusCode, location, contentType, body: Buffer.concat(chunks), truncated });
      });
      res.on('error', (err) => {
        finish();
        reject(err);
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${Math.round(o.timeoutMs / 1000)} s`)), msLeft);
    const finish = () => {
      clearTimeout(timer);
      req.destroy();
    };
    req.on('error', (err: Error) => {
      finish();
      reject(err);
    });
    req.end();
  });
}

/** Checks, resolves and GETs each hop within one deadline. Never throws: every failure is an outcome. */
export async function safeGet(resolver: Resolver, o: SafeGet): Promise<GetOutcome> {
  const deadline = Date.now() + o.timeoutMs;
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return { kind: 'error', reason: 'invalid url' };
  }
  for (let hop = 0; ; hop++) {
    const exempt = isExempt(url, o.allowHosts);
    const problem = fetchUrlProblem(url, exempt);
    if (problem) return { kind: 'refused', reason: `refused: ${problem}` };
    let resolution: Resolution;
    try {
      resolution = await withDeadline(resolveTarget(resolver, bareHost(url), exempt), Math.max(1, deadline - Date.now()), 'resolving');
    } catch (err) {
      return { kind: 'error', reason: `dns: ${(err as Error).message}` };
    }
    if (!resolution.ok) return { kind: 'refused', reason: resolution.reason };
    let answer: Hop;
    try {
      answer = await getFrom(url, resolution.target, o, Math.max(1, deadline - Date.now()));
    } catch (err) {
      return { kind: 'error', reason: (err as Error).message || String(err) };
    }
    if (answer.location === null) {
      return { kind: 'response', url: url.href, statusCode: answer.statusCode, contentType: answer.contentType, body: answer.body, truncated: answer.truncated };
    }
    if (hop >= o.maxRedirects) return { kind: 'error', reason: `more than ${o.maxRedirects} redirects` };
    try {
      url = new URL(answer.location, url);
    } catch {
      return { kind: 'error', reason: 'invalid redirect location' };
    }
  }
}
