// Public domain names, judged by the Public Suffix List (tldts), never by a regex alone.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';

export type DomainNameCheck =
  | { ok: true; name: string; registrable: string; isSubdomain: boolean }
  | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower-cases, drops a trailing dot, converts IDNs to A-labels, and checks the name is a public domain. */
export function checkDomainName(input: string): DomainNameCheck {
  const trimmed = input.trim().toLowerCase().replace(/\.$/, '');
  if (!trimmed) return { ok: false, reason: 'the name is empty' };
  if (isIP(trimmed) || /^\[.*\]$/.test(trimmed)) return { ok: false, reason: 'an IP address is not a domain name' };
  const name = domainToASCII(trimmed);
  if (!name || name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) {
    return { ok: false, reason: 'the name is not a valid host name' };
  }
  const parsed = parse(name, { allowPrivateDomains: false });
  if (parsed.isIp) return { ok: false, reason: 'an IP address is not a domain name' };
  if (!parsed.isIcann || !parsed.domain) {
    return { ok: false, reason: 'the name is not under a public suffix, or is a public suffix itself' };
  }
  return { ok: true, name, registrable: parsed.domain, isSubdomain: parsed.domain !== name };
}
