// Sign-in with a provider (FluentAuth's social-auth): the providers Tern knows, what an operator sets for each, and
// the rules those settings keep. Google speaks OpenID Connect (its metadata found at the issuer); GitHub plain
// OAuth 2 (fixed endpoints, no ID token, the user's verified primary email read from its API).
import { checkWebhookUrl, isHttpLoopback } from '../webhook-url.js';

export { isHttpLoopback };

/** One field a change breaks, and why (worded with the field's name, as the REST route answers it). */
type FieldProblem = { field: string; message: string };

export const SOCIAL_PROVIDERS = ['google', 'github'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

export const isSocialProvider = (value: string): value is SocialProvider => (SOCIAL_PROVIDERS as readonly string[]).includes(value);

export const PROVIDER_NAMES: Readonly<Record<SocialProvider, string>> = { google: 'Google', github: 'GitHub' };

/** Google's issuer; an operator may name another OpenID Connect issuer (a test's double, a Workspace proxy). */
export const GOOGLE_ISSUER = 'https://accounts.google.com';

/** A provider as an operator set it; the client secret only sealed, never read back by an interface. */
export interface SocialProviderSettings {
  provider: SocialProvider;
  enabled: boolean;
  clientId: string;
  /** Sealed with the secret box; null when none was given. */
  clientSecretEnc: string | null;
  /** OpenID Connect providers only (null for GitHub). */
  issuer: string | null;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

/** An operator's change of one provider: each field optional, the rest kept; a secret given replaces the stored one. */
export interface SocialProviderChange {
  enabled?: boolean;
  clientId?: string;
  /** Plain, as typed: sealed by the use case; '' removes it. */
  clientSecret?: string;
  issuer?: string;
}

/** A provider nobody set: off, with Google's issuer. */
export const unsetProvider = (provider: SocialProvider, at: string): SocialProviderSettings => ({
  provider,
  enabled: false,
  clientId: '',
  clientSecretEnc: null,
  issuer: provider === 'google' ? GOOGLE_ISSUER : null,
  updatedAt: at,
});

const CLIENT_ID_MAX = 255;
const CLIENT_SECRET_MAX = 512;

/**
 * What is wrong with a provider's settings once changed (`merged`), field by field: an enabled provider needs its
 * client id and secret; the issuer is an https URL on a public host name (the webhook URL rules), or, when the
 * configuration allows it for tests, http on the loopback interface.
 */
export function socialProviderProblems(merged: SocialProviderSettings, change: SocialProviderChange, allowHttpLoopback: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (merged.clientId.length > CLIENT_ID_MAX || /[\s\p{Cc}]/u.test(merged.clientId))
    problems.push({ field: 'client_id', message: `client_id must be at most ${CLIENT_ID_MAX} characters, without spaces or control characters.` });
  if (change.clientSecret !== undefined && (change.clientSecret.length > CLIENT_SECRET_MAX || /[\s\p{Cc}]/u.test(change.clientSecret)))
    problems.push({ field: 'client_secret', message: `client_secret must be at most ${CLIENT_SECRET_MAX} characters, without spaces or control characters.` });
  if (merged.enabled && merged.clientId === '') problems.push({ field: 'client_id', message: 'An enabled provider needs its client id.' });
  if (merged.enabled && merged.clientSecretEnc === null) problems.push({ field: 'client_secret', message: 'An enabled provider needs its client secret.' });
  if (change.issuer !== undefined && merged.provider !== 'google')
    problems.push({ field: 'issuer', message: `${PROVIDER_NAMES[merged.provider]} has no issuer to set.` });
  else if (change.issuer !== undefined && !issuerAllowed(change.issuer, allowHttpLoopback))
    problems.push({ field: 'issuer', message: 'issuer must be an https:// URL on a public host name.' });
  return problems;
}

/** An https URL by the webhook rules (public host name), or http on 127.0.0.1/localhost where tests allow it. */
export function issuerAllowed(issuer: string, allowHttpLoopback: boolean): boolean {
  if (allowHttpLoopback && isHttpLoopback(issuer)) return true;
  const checked = checkWebhookUrl(issuer);
  return checked.ok && checked.url.startsWith('https://');
}
