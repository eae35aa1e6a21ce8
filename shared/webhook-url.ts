// Webhook URL rules from the specification: at most 2,048 characters; https, or http on port 443, 80 or 8080;
// a public host name only; no whitespace, control or invisible character anywhere (refused, never re-encoded).
// The addresses the host resolves to are checked when a webhook is created or changed (core/webhooks.ts) and
// again when a delivery resolves the name (shared/public-address.ts).
import { isIP } from 'node:net';
import { parse } from 'tldts';
import { forbiddenCharacter } from './domain-name.js';

export const WEBHOOK_URL_MAX = 2048;
const HTTP_PORTS = new Set(['', '80', '443', '8080']);

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export function checkWebhookUrl(input: string): UrlCheck {
  if (input.length > WEBHOOK_URL_MAX) return { ok: false, reason: `the url is longer than ${WEBHOOK_URL_MAX} characters` };
  // The URL parser strips surrounding whitespace and controls, drops tabs and new lines, and percent-encodes the
  // rest: the stored url would not be the one given (and CR LF is how a header gets injected). Refuse instead.
  const hidden = forbiddenCharacter(input);
  if (hidden) return { ok: false, reason: `the url contains ${hidden}` };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'the url is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'the url scheme must be https or http' };
  // Percent-encoding and punycode can lengthen the input; the stored form must respect the limit too.
  if (url.href.length > WEBHOOK_URL_MAX) return { ok: false, reason: `the url is longer than ${WEBHOOK_URL_MAX} characters once normalised` };
  // Port 0 parses but nothing can be delivered to it.
  if (url.port === '0') return { ok: false, reason: 'the url port must be between 1 and 65535' };
  if (url.protocol === 'http:' && !HTTP_PORTS.has(url.port)) return { ok: false, reason: 'http urls may use port 80, 443 or 8080 only' };
  const host = url.hostname.replace(/\.$/, '');
  if (isIP(host) || host.startsWith('[')) return { ok: false, reason: 'the url host must be a host name, not an IP address' };
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'the url host must be a public host name' };
  const parsed = parse(host, { allowPrivateDomains: false });
  if (!parsed.isIcann || !parsed.domain || host.endsWith('.arpa')) {
    return { ok: false, reason: 'the url host must be a public host name' };
  }
  return { ok: true, url: url.toString() };
}

/**
 * http://127.0.0.1, localhost or [::1] (any port and path): the only plain-HTTP place a sign-in provider may be, and
 * only where the configuration allows it (tests' doubles; dashboard.socialSignIn.allowHttpLoopback).
 */
export function isHttpLoopback(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]');
  } catch {
    return false;
  }
}
