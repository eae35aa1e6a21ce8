// Where mail for a domain goes: its MX hosts in preference order with their addresses (RFC 5321 §5.1),
// the implicit MX when it has none, or null MX (RFC 7505). Answers are cached by TTL, because every
// delivery asks and most go to a few large domains.
import type { MxRecord } from 'node:dns';
import type { Resolver } from 'node:dns/promises';
import { domainToASCII } from 'node:url';

export interface MxHost {
  exchange: string;
  preference: number;
  /** IPv4 first, then IPv6. */
  addresses: string[];
}

export type MxRoute = { kind: 'hosts'; hosts: MxHost[] } | { kind: 'null-mx' } | { kind: 'no-route'; reason: string; temporary: boolean };

export interface MxResolverOptions {
  /** Per record type (MX, A, AAAA). */
  maxCacheEntries?: number;
  /** Milliseconds; tests move it forward to expire the cache. */
  now?: () => number;
  /** In [0, 1); orders MX hosts of equal preference. */
  random?: () => number;
}

// resolveMx gives no TTL, so MX answers are kept a fixed time; address TTLs are capped at the same.
const MX_CACHE_S = 300;
const ADDRESS_TTL_CAP_S = 300;
// The SOA minimum is not visible through node:dns, so negative answers get a short fixed time.
const NEGATIVE_CACHE_S = 60;
// Errors that asking again will not change; everything else (SERVFAIL, timeouts, refused) is temporary.
const PERMANENT_ERRORS = new Set(['EBADNAME', 'EBADQUERY', 'EBADFAMILY']);

type Answer<T> = { kind: 'found'; records: T[]; ttlS: number } | { kind: 'nxdomain' } | { kind: 'nodata' } | { kind: 'error'; code: string; temporary: boolean };

function failure<T>(err: unknown): Answer<T> {
  const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
  if (code === 'ENOTFOUND') return { kind: 'nxdomain' };
  if (code === 'ENODATA') return { kind: 'nodata' };
  return { kind: 'error', code, temporary: !PERMANENT_ERRORS.has(code) };
}

async function ask<T>(query: Promise<T[]>, ttlS: (records: T[]) => number): Promise<Answer<T>> {
  try {
    const records = await query;
    return records.length ? { kind: 'found', records, ttlS: ttlS(records) } : { kind: 'nodata' };
  } catch (err) {
    return failure(err);
  }
}

function cacheSeconds(answer: Answer<unknown>): number {
  if (answer.kind === 'found') return answer.ttlS;
  return answer.kind === 'error' ? 0 : NEGATIVE_CACHE_S;
}

/** DNS answers by key until their TTL runs out, least recently used evicted first; concurrent asks share one query. */
class AnswerCache<T> {
  private readonly entries = new Map<string, { answer: Answer<T>; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<Answer<T>>>();

  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  get(key: string, query: () => Promise<Answer<T>>): Promise<Answer<T>> {
    const hit = this.fresh(key);
    if (hit) return Promise.resolve(hit);
    let flight = this.pending.get(key);
    if (!flight) {
      flight = query().then((answer) => this.store(key, answer));
      flight.finally(() => this.pending.delete(key)).catch(() => undefined);
      this.pending.set(key, flight);
    }
    return flight;
  }

  private fresh(key: string): Answer<T> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.answer;
  }

  private store(key: string, answer: Answer<T>): Answer<T> {
    const seconds = cacheSeconds(answer);
    if (seconds <= 0) return answer;
    while (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { answer, expiresAt: this.now() + seconds * 1000 });
    return answer;
  }
}

const isRoot = (exchange: string): boolean => exchange === '' || exchange === '.';

/** RFC 7505: exactly one MX, preference 0, exchange the root. */
const isNullMx = (records: MxRecord[]): boolean => records.length === 1 && records[0]!.priority === 0 && isRoot(records[0]!.exchange);

const noRoute = (reason: string, temporary: boolean): MxRoute => ({ kind: 'no-route', reason, temporary });

/** Lower-case A-label form without the trailing dot, or '' when it is no domain name. */
function normaliseDomain(domain: string): string {
  const ascii = domainToASCII(domain.trim().replace(/\.$/, ''));
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(ascii) ? ascii : '';
}

export class MxResolver {
  private readonly mx: AnswerCache<MxRecord>;
  private readonly address: AnswerCache<{ address: string; ttl: number }>;
  private readonly random: () => number;

  constructor(
    private readonly resolver: Resolver,
    options: MxResolverOptions = {},
  ) {
    const max = options.maxCacheEntries ?? 10_000;
    const now = options.now ?? Date.now;
    this.mx = new AnswerCache(max, now);
    this.address = new AnswerCache(max, now);
    this.random = options.random ?? Math.random;
  }

  async route(domain: string): Promise<MxRoute> {
    const name = normaliseDomain(domain);
    if (!name) return noRoute(`"${domain}" is not a valid domain name`, false);
    const mx = await this.mx.get(name, () => ask(this.resolver.resolveMx(name), () => MX_CACHE_S));
    if (mx.kind === 'error') return noRoute(`MX lookup for ${name} failed (${mx.code})`, mx.temporary);
    if (mx.kind === 'found') return this.viaMx(name, mx.records);
    return this.implicitMx(name, mx.kind);
  }

  private async viaMx(name: string, records: MxRecord[]): Promise<MxRoute> {
    if (isNullMx(records)) return { kind: 'null-mx' };
    const ordered = this.order(records.filter((r) => !isRoot(r.exchange)));
    const resolved = await Promise.all(ordered.map((r) => this.addressesOf(r.exchange)));
    const hosts = ordered
      .map((r, i) => ({ exchange: r.exchange.toLowerCase(), preference: r.priority, addresses: resolved[i]!.addresses }))
      .filter((host) => host.addresses.length > 0);
    if (hosts.length) return { kind: 'hosts', hosts };
    if (resolved.some((r) => r.temporary)) return noRoute(`no MX host of ${name} could be resolved now`, true);
    return noRoute(`no MX host of ${name} has an address`, false);
  }

  /** RFC 5321 §5.1: without MX records the domain itself is the host. */
  private async implicitMx(name: string, why: 'nxdomain' | 'nodata'): Promise<MxRoute> {
    const { addresses, temporary } = await this.addressesOf(name);
    if (addresses.length) return { kind: 'hosts', hosts: [{ exchange: name, preference: 0, addresses }] };
    if (temporary) return noRoute(`address lookup for ${name} failed`, true);
    return noRoute(why === 'nxdomain' ? `${name} does not exist (NXDOMAIN)` : `${name} has no MX or address records`, false);
  }

  /** Ascending preference; equal preferences in random order, so load spreads over them. */
  private order(records: MxRecord[]): MxRecord[] {
    return records
      .map((record) => ({ record, tiebreak: this.random() }))
      .sort((a, b) => a.record.priority - b.record.priority || a.tiebreak - b.tiebreak)
      .map(({ record }) => record);
  }

  /** A and AAAA of a host, IPv4 first; `temporary` when a family failed in a way worth asking again. */
  private async addressesOf(host: string): Promise<{ addresses: string[]; temporary: boolean }> {
    const [v4, v6] = await Promise.all([
      this.address.get(`A:${host}`, () => ask(this.resolver.resolve4(host, { ttl: true }), addressTtl)),
      this.address.get(`AAAA:${host}`, () => ask(this.resolver.resolve6(host, { ttl: true }), addressTtl)),
    ]);
    const addresses = [...found(v4), ...found(v6)].map((r) => r.address);
    return { addresses: [...new Set(addresses)], temporary: [v4, v6].some((a) => a.kind === 'error' && a.temporary) };
  }
}

const addressTtl = (records: Array<{ ttl: number }>): number => Math.min(ADDRESS_TTL_CAP_S, ...records.map((r) => r.ttl));

const found = <T>(answer: Answer<T>): T[] => (answer.kind === 'found' ? answer.records : []);
