// Every DNS lookup the product makes goes through a resolver built here, pointed at TERNMAIL_DNS_SERVERS.
import { Resolver } from 'node:dns/promises';

/** `timeoutMs` and `tries`: per query; a probe that must answer quickly (site health) asks for less than the default. */
export function createResolver(servers: readonly string[], { timeoutMs = 3000, tries = 2 }: { timeoutMs?: number; tries?: number } = {}): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries });
  if (servers.length) resolver.setServers([...servers]);
  return resolver;
}

const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

/** A lookup whose "no such record" answers become an empty list; real failures still throw. */
export async function orEmpty<T>(lookup: Promise<T[]>): Promise<T[]> {
  try {
    return await lookup;
  } catch (err) {
    if (ABSENT.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}
