// Public domain names, judged by the Public Suffix List (tldts), never by a regex alone.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';

export type DomainNameCheck = { ok: true; name: string; registrable: string; isSubdomain: boolean } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character that input may never carry, described for an error message: whitespace (surrounding
 * included), a control character (C0, DEL, C1) or an invisible formatting one. Parsers drop or re-encode these
 * silently (a host parser removes tabs and new lines, IDNA drops soft hyphens), so they are refused instead. */
export function forbiddenCharacter(text: string): string | null {
  const found = /[\p{White_Space}\p{Cc}\p{Cf}]/u.exec(text)?.[0];
  if (found === undefined) return null;
  const space = /\p{White_Space}/u.test(found);
  const control = /\p{Cc}/u.test(found);
  if (space) return `whitespace (${codePoint(found)}${control ? ', a control character' : ''})`;
  return `${control ? 'a control character' : 'an invisible formatting character'} (${codePoint(found)})`;
}

/** Parts of a URL or mailbox that a host parser would cut off or decode, leaving a different name. */
function notJustAName(text: string): string | null {
  const hidden = forbiddenCharacter(text);
  if (hidden) return `the name contains ${hidden}`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return 'a domain name has no scheme (such as https://)';
  if (text.includes('@')) return 'a domain name has no user info (the part before @)';
  if (/[/\\]/.test(text)) return 'a domain name has no path (/ or \\)';
  if (text.includes('?')) return 'a domain name has no query (?)';
  if (text.includes('#')) return 'a domain name has no fragment (#)';
  if (isIP(text) || /^\[.*\]$/.test(text)) return 'an IP address is not a domain name';
  if (text.includes(':')) return 'a domain name has no port (:)';
  if (text.includes('%')) return 'a domain name has no percent-encoding (%)';
  return null;
}

/** Lower-cases, drops a trailing dot, converts IDNs to A-labels, and checks the name is a public domain.
 * Nothing else is changed: a name that would need more than this to become a domain is refused. */
export function checkDomainName(input: string): DomainNameCheck {
  if (!input) return { ok: false, reason: 'the name is empty' };
  const problem = notJustAName(input);
  if (problem) return { ok: false, reason: problem };
  const lowered = input.toLowerCase().replace(/\.$/, '');
  const name = domainToASCII(lowered);
  // An ASCII name must come out of the conversion exactly as it went in; anything else was a rewrite.
  const rewritten = /^[\x20-\x7e]*$/.test(lowered) && name !== lowered;
  if (!name || rewritten || name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) {
    return { ok: false, reason: 'the name is not a valid host name' };
  }
  const parsed = parse(name, { allowPrivateDomains: false });
  if (parsed.isIp) return { ok: false, reason: 'an IP address is not a domain name' };
  if (!parsed.isIcann || !parsed.domain) {
    return { ok: false, reason: 'the name is not under a public suffix, or is a public suffix itself' };
  }
  return { ok: true, name, registrable: parsed.domain, isSubdomain: parsed.domain !== name };
}

/**
 * The organizational domain of a name as DMARC finds it (RFC 7489 §3.2): the registrable domain by the whole
 * Public Suffix List, private section included, as receivers (and mailauth) read it; the name itself when none.
 */
export function organizationalDomain(name: string): string {
  return parse(name, { allowPrivateDomains: true }).domain ?? name;
}
