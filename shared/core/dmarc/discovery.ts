// DMARC policy discovery (RFC 7489 §6.6.3): the DMARC records at `_dmarc.<domain>`, else at its organizational
// domain's; one record parsed, none, several (then no policy applies) or a lookup that failed, told apart.
import type { Resolver } from 'node:dns/promises';
import { orEmpty } from '../../dns.js';
import { organizationalDomain } from '../../domain-name.js';
import { isDmarcRecord, parseDmarcRecord, type DmarcRecord } from './record.js';

export type Discovery =
  | { status: 'valid'; name: string; found: string[]; record: DmarcRecord }
  | { status: 'none'; name: string; found: string[] }
  | { status: 'several'; name: string; found: string[] }
  | { status: 'invalid'; name: string; found: string[]; problems: string[] }
  | { status: 'lookup_failed'; name: string; found: string[]; error: string };

/** The DMARC records at one name (other TXT records there are discarded), or the lookup's error code. */
async function recordsAt(resolver: Resolver, name: string): Promise<string[] | { error: string }> {
  try {
    const txt = await orEmpty(resolver.resolveTxt(name));
    return txt.map((chunks) => chunks.join('')).filter(isDmarcRecord);
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

async function discoverAt(resolver: Resolver, domain: string): Promise<Discovery> {
  const name = `_dmarc.${domain}`;
  const found = await recordsAt(resolver, name);
  if (!Array.isArray(found)) return { status: 'lookup_failed', name, found: [], error: found.error };
  if (found.length === 0) return { status: 'none', name, found };
  if (found.length > 1) return { status: 'several', name, found };
  const parsed = parseDmarcRecord(found[0]!);
  return parsed.ok ? { status: 'valid', name, found, record: parsed.record } : { status: 'invalid', name, found, problems: parsed.problems };
}

/** The record that governs `domain`, and whether it was inherited from the organizational domain. */
export async function discoverDmarc(resolver: Resolver, domain: string): Promise<{ discovery: Discovery; inherited: boolean }> {
  const own = await discoverAt(resolver, domain);
  const org = organizationalDomain(domain);
  // Only an empty set sends the search to the organizational domain; several or invalid records end it.
  if (own.status !== 'none' || org === domain) return { discovery: own, inherited: false };
  const inherited = await discoverAt(resolver, org);
  return inherited.status === 'none' ? { discovery: own, inherited: false } : { discovery: inherited, inherited: true };
}
