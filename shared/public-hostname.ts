// Whether the host name Tern tells domains to publish (the MX target of send.<domain> and the SPF include) is a
// public one: a name under a public suffix that the world's DNS can answer (tldts, the Public Suffix List), not a
// machine's bare name (`vm`), an address, or a name of a local or special-use namespace. Names under `.test`
// (RFC 6761, reserved for testing) are accepted so test suites can use one such as mx.tern.test; they never
// resolve in public DNS, and are meant for tests only (docs/decisions.md, "Issue 22 item 8").
import { isIP } from 'node:net';
import { parse } from 'tldts';

/** Names the Public Suffix List does not know, or knows as ICANN's, that are never reachable from the Internet. */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
  'localdomain',
  'home.arpa',
  'arpa',
  'invalid',
  'example',
  'onion',
];
/** Accepted without the Public Suffix List: reserved for testing (RFC 6761 §6.2). */
const TESTING_SUFFIX = 'test';

const under = (host: string, suffix: string): boolean => host === suffix || host.endsWith(`.${suffix}`);

/** Why `host` (lower case, no final dot) cannot be Tern's public host name, or null when it can. */
export function publicHostnameProblem(host: string): string | null {
  if (host === '') return 'it is empty';
  if (isIP(host) || /^\[.*\]$/.test(host)) return 'it is an IP address, not a host name';
  if (!host.includes('.')) return 'it has no dot: a machine’s own name, which the rest of the Internet cannot look up';
  const local = LOCAL_SUFFIXES.find((s) => under(host, s));
  if (local) return `.${local} names are local or special-use, never answered by public DNS`;
  if (under(host, TESTING_SUFFIX)) return null;
  const parsed = parse(host, { allowPrivateDomains: true });
  if (!(parsed.isIcann || parsed.isPrivate) || !parsed.domain) return 'it is not under a public suffix (or is a public suffix itself)';
  return null;
}
