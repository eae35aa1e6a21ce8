// Whether an address is a public one, and the check of every address a host name resolves to: the one rule
// that keeps URLs our users choose (webhooks) off our own network. Webhook urls are checked with it when they
// are created or changed (core/webhooks.ts) and again at each delivery (feedback/safe-http.ts), which connects to
// the address it checked so a DNS answer changing in between (rebinding) cannot point the request elsewhere.
import type { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { orEmpty } from './dns.js';

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolution = { ok: true; target: PinnedAddress } | { ok: false; reason: string };

// First match names the reason. IPv6 outside 2000::/3 (global unicast) is refused in any case below.
const NOT_PUBLIC: ReadonlyArray<[label: string, family: 'ipv4' | 'ipv6', net: string, prefix: number]> = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['shared address space (CGNAT)', 'ipv4', '100.64.0.0', 10],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.88.99.0', 24],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['benchmarking', 'ipv4', '198.18.0.0', 15],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['IPv4-mapped', 'ipv6', '::ffff:0:0', 96],
  ['NAT64', 'ipv6', '64:ff9b::', 96],
  ['private', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['site-local', 'ipv6', 'fec0::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
  // Inside 2000::/3 but not an ordinary host: protocol assignments (Teredo…), 6to4 (embeds any IPv4), documentation.
  ['reserved', 'ipv6', '2001::', 23],
  ['6to4', 'ipv6', '2002::', 16],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['documentation', 'ipv6', '3fff::', 20],
];

const RANGES = NOT_PUBLIC.map(([label, family, net, prefix]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { label, family, list };
});

const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** Why an address is not a public one, or null when it is. */
export function notPublicReason(address: string): string | null {
  const version = isIP(address);
  if (version === 0) return 'not an IP address';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const hit = RANGES.find((r) => r.family === family && r.list.check(address, family));
  if (hit) return hit.label;
  if (family === 'ipv6' && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) return 'not global unicast';
  return null;
}

/** Every A and AAAA address of the host; an IP literal is its own answer. */
async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  const [v4, v6] = await Promise.all([orEmpty(resolver.resolve4(host)), orEmpty(resolver.resolve6(host))]);
  return [...v4, ...v6];
}

/** Resolves now and checks every address: one private answer among public ones is enough to refuse. */
export async function resolveTarget(resolver: Resolver, host: string, allowPrivate: boolean): Promise<Resolution> {
  const addresses = await addressesOf(resolver, host);
  if (!addresses.length) throw new Error(`${host} has no A or AAAA record`);
  if (!allowPrivate) {
    for (const address of addresses) {
      const reason = notPublicReason(address);
      if (reason) return { ok: false, reason: `refused: ${host} resolves to ${address} (${reason})` };
    }
  }
  // IPv4 first: more receivers are reachable over it than over IPv6.
  const address = addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
  return { ok: true, target: { address, family: isIP(address) === 4 ? 4 : 6 } };
}
