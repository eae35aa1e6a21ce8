// Single sign-on between Tern dashboards (FluentAuth's child sites): a dashboard (the parent) registers another
// (a child) and gets a shared secret once; the child registers the parent with that secret. A signed-in user of
// the parent is sent to the child with a short-lived token signed with the secret (HMAC-SHA256), which the child
// verifies itself and spends once. These are the rules both sides share: what a site's URL may be, and the token's
// claims.
import { isIP } from 'node:net';
import { checkWebhookUrl } from '../webhook-url.js';

/** child: a site this dashboard sends its users to (it signs their tokens); parent: a site it accepts users from. */
export const SSO_SITE_KINDS = ['child', 'parent'] as const;
export type SsoSiteKind = (typeof SSO_SITE_KINDS)[number];

export interface SsoSite {
  id: number;
  kind: SsoSiteKind;
  /** The pair's public name, chosen by the parent when it registered the child: in every token, and in both sides' rows. */
  siteId: string;
  name: string;
  /** The other dashboard's origin (scheme://host[:port]). */
  url: string;
  createdAt: string;
}

export const SSO_NAME_MAX = 100;
/** A site id as the parent makes it (16 random bytes, hex); a parent's given by hand is held to the same. */
export const SITE_ID_PATTERN = /^[0-9a-f]{32}$/;

/** What the token carries (signed): the pair, the user's email, its one-time id, its expiry, and where to land. */
export interface SsoClaims {
  /** The site id of the pair (which parent issued it, for which child). */
  sid: string;
  /** The user's email on the parent; the child signs in its user of that email. */
  sub: string;
  /** 16 random bytes, hex: spent once by the child. */
  jti: string;
  /** Epoch milliseconds after which the child refuses it. */
  exp: number;
  /** A path of the child to land on, or null: its home. */
  to: string | null;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A site's URL as stored: its origin. https and a public host name by the webhook URL rules; http only on a
 * loopback host and only when `allowLoopback` (webhooks.allowPrivate: tests and closed networks), so a token,
 * which signs a user in, never travels in clear over a network.
 */
export function checkSiteUrl(input: string, allowLoopback: boolean): { ok: true; url: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'url must be an absolute URL such as https://dashboard.example.com' };
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || input.trim() !== input)
    return { ok: false, reason: 'url must be the dashboard’s origin only (scheme://host[:port], no path, query or credentials)' };
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || (isIP(url.hostname) === 4 && url.hostname.startsWith('127.'));
  if (allowLoopback && loopback && (url.protocol === 'http:' || url.protocol === 'https:')) return { ok: true, url: url.origin };
  if (url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  const checked = checkWebhookUrl(input);
  return checked.ok ? { ok: true, url: url.origin } : { ok: false, reason: checked.reason };
}
