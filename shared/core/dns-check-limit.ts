// How often a domain's DNS may be looked at on demand (the verify and DMARC checks): at most verify.onDemand.limit
// lookups of one kind per domain in any windowS seconds, each kind counted on its own.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { hitWindow } from '../rate-limit.js';
import { redisKeys } from '../redis-keys.js';
import { done, refuse, type Managed } from './management-refusals.js';

export type DnsCheckKind = 'verify' | 'dmarc';

/** Counts one check of `kind` on the domain, or refuses it (rate_limited, with the wait) when over the limit. */
export async function dnsCheckAllowed(d: { redis: Redis; config: Config }, domainId: string, kind: DnsCheckKind): Promise<Managed<void>> {
  const { limit, windowS } = d.config.verify.onDemand;
  const key = kind === 'verify' ? redisKeys.domainChecks(domainId) : redisKeys.domainDmarcChecks(domainId);
  const rate = await hitWindow(d.redis, key, limit, windowS);
  if (rate.allowed) return done(undefined);
  const what = kind === 'verify' ? 'DNS checks' : 'DMARC checks';
  return refuse({ kind: 'rate_limited', message: `At most ${limit} ${what} of a domain in ${windowS} seconds; try again later.`, retryAfterS: rate.resetS });
}
