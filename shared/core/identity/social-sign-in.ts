// Sign-in with a provider (FluentAuth's social-auth): Google through OpenID Connect (discovery, PKCE, state and
// nonce, the ID token validated by openid-client), GitHub through plain OAuth 2 (fixed endpoints, its API for the
// user and their verified primary email). A provider's sign-in only signs in a user who exists: linked by the
// provider's subject once, or found by a verified email the first time (then linked). Everything else is refused.
// The session, throttles and auth log are the password login's (Logins.providerSignIn).
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import type { SecretBox } from '../../secret-box.js';
import type { Logger } from '../../log.js';
import type { Session, User } from '../../domain/user.js';
import { isHttpLoopback, isSocialProvider, type SocialProvider, type SocialProviderSettings } from '../../domain/social-sign-in.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import { hashesMatch } from '../../api-key.js';
import { isoAt } from './deps.js';
import type { Attempt, Logins } from './login.js';

export type SocialRefusal =
  /** The provider is unknown, off, or not set. */
  | { kind: 'provider_disabled' }
  /** The callback's state is unknown, expired, already used, or a state of another provider's sign-in. */
  | { kind: 'state_invalid' }
  /** The provider refused, or what it answered did not hold (the code, the ID token, the user's data). */
  | { kind: 'provider_failed' }
  /** The provider does not vouch for the email. */
  | { kind: 'email_unverified' }
  /** No user has the email (Tern makes no user from a provider's sign-in). */
  | { kind: 'no_user' }
  | { kind: 'throttled'; retryAfterS: number };

/**
 * A started sign-in: the provider's URL, and `binding`, a secret for the browser that started it (a cookie): the
 * callback must bring it back, so that nobody can finish their own sign-in in someone else's browser.
 */
export type SocialStart = { ok: true; url: string; binding: string } | { ok: false; refusal: SocialRefusal };

export type SocialFinish =
  | { ok: true; token: string; session: Session; user: User; nonce: string; method: SocialProvider; redirectTo: string | undefined }
  | { ok: false; refusal: SocialRefusal };

/** What a started sign-in keeps until its callback (in Redis, once). */
interface Pending {
  provider: SocialProvider;
  /** sha256 of the browser's binding. */
  bindingHash: string;
  verifier: string;
  nonce: string;
  redirectUri: string;
  redirectTo: string | undefined;
}

/** Who the provider says signed in. */
interface ProviderIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

export interface SocialSignInDeps {
  store: Store;
  redis: Redis;
  config: Config;
  secrets: SecretBox;
  now: () => number;
}

/** The callback as it arrived: its query string, and the redirect URI the sign-in was started with. */
export interface SocialCallback {
  provider: string;
  query: URLSearchParams;
  /** The binding the browser brought back (its cookie). */
  binding: string | undefined;
  client: Attempt;
}

const SCOPES: Readonly<Record<SocialProvider, string>> = { google: 'openid email profile', github: 'read:user user:email' };

export class SocialSignIn {
  constructor(
    private readonly d: SocialSignInDeps,
    private readonly logins: Logins,
  ) {}

  /** The providers a sign-in page offers. */
  async enabledProviders(): Promise<SocialProvider[]> {
    return (await this.d.store.socialSignIn.providers()).filter((p) => p.enabled).map((p) => p.provider);
  }

  /** Starts a sign-in: the provider's authorization URL, with its state, nonce and PKCE challenge kept here once. */
  async start(provider: string, redirectUri: string, redirectTo: string | undefined, log: Logger): Promise<SocialStart> {
    const settings = await this.enabled(provider);
    if (!settings) return { ok: false, refusal: { kind: 'provider_disabled' } };
    const config = await this.configurationOf(settings, log);
    if (!config) return { ok: false, refusal: { kind: 'provider_failed' } };
    const [verifier, state, nonce] = [oidc.randomPKCECodeVerifier(), oidc.randomState(), oidc.randomNonce()];
    const binding = randomBytes(32).toString('base64url');
    const pending: Pending = { provider: settings.provider, bindingHash: sha256Hex(binding), verifier, nonce, redirectUri, redirectTo };
    await this.d.redis.set(redisKeys.socialSignIn(sha256Hex(state)), JSON.stringify(pending), 'EX', this.d.config.dashboard.socialSignIn.stateTtlS);
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: SCOPES[settings.provider],
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(settings.provider === 'google' ? { nonce } : {}),
    };
    return { ok: true, url: oidc.buildAuthorizationUrl(config, parameters).href, binding };
  }

  /**
   * The provider's callback: the state taken (once; GETDEL), the address's place taken before the code is
   * exchanged, the identity read, the user found by its link or by a verified email, and the password login's session.
   */
  async finish(c: SocialCallback, log: Logger): Promise<SocialFinish> {
    const state = c.query.get('state') ?? '';
    const taken = state === '' ? null : await this.d.redis.getdel(redisKeys.socialSignIn(sha256Hex(state)));
    const pending = taken === null ? undefined : (JSON.parse(taken) as Pending);
    if (!pending || pending.provider !== c.provider || !hashesMatch(pending.bindingHash, sha256Hex(c.binding ?? ''))) return refusal({ kind: 'state_invalid' });
    const settings = await this.enabled(pending.provider);
    if (!settings) return refusal({ kind: 'provider_disabled' });
    const place = await this.logins.reserveProviderAttempt(c.client.address);
    if (place.granted === 0) {
      await this.logins.providerRefused(c.client, settings.provider, 'throttled');
      return refusal({ kind: 'throttled', retryAfterS: Math.max(place.decisions[0]?.resetS ?? 1, 1) });
    }
    const identity = await this.identify(settings, c.query, state, pending, log);
    if (!identity) {
      await this.logins.providerRefused(c.client, settings.provider, 'failure');
      return refusal({ kind: 'provider_failed' });
    }
    const user = await this.userOf(settings.provider, identity);
    const attempt = { ...c.client, email: user.ok ? user.user.email : (identity.email ?? '') };
    if (!user.ok) {
      // Recorded against the user the email names, if any, as a wrong password for it is: their account sees it.
      const named = identity.email === undefined ? undefined : await this.d.store.users.findByEmail(identity.email);
      await this.logins.providerRefused(attempt, settings.provider, 'failure', named);
      log.info({ provider: settings.provider, refusal: user.refusal.kind }, 'sign-in with a provider refused');
      return refusal(user.refusal);
    }
    const result = await this.logins.providerSignIn(user.user, attempt, settings.provider, place, log);
    if (!result.ok) return refusal(result.refusal.kind === 'throttled' ? result.refusal : { kind: 'provider_failed' });
    return { ...result, method: settings.provider, redirectTo: pending.redirectTo };
  }

  /** The user a subject is linked to; else the user of the verified email, linked now (the first link stands). */
  private async userOf(provider: SocialProvider, identity: ProviderIdentity): Promise<{ ok: true; user: User } | { ok: false; refusal: SocialRefusal }> {
    const linked = await this.d.store.socialSignIn.linkOf(provider, identity.subject);
    const byLink = linked === undefined ? undefined : await this.d.store.users.get(linked);
    if (byLink) return { ok: true, user: byLink };
    if (identity.email === undefined || !identity.emailVerified) return { ok: false, refusal: { kind: 'email_unverified' } };
    const byEmail = await this.d.store.users.findByEmail(identity.email);
    if (!byEmail) return { ok: false, refusal: { kind: 'no_user' } };
    const link = await this.d.store.socialSignIn.link({ provider, subject: identity.subject, userId: byEmail.id, linkedAt: isoAt(this.d.now()) });
    // Two first sign-ins of one subject at once: the link made first decides which user it signs in.
    return link.userId === byEmail.id ? { ok: true, user: byEmail } : { ok: false, refusal: { kind: 'no_user' } };
  }

  /** The code exchanged and the identity read; undefined when anything the provider answered does not hold. */
  private async identify(settings: SocialProviderSettings, query: URLSearchParams, state: string, p: Pending, log: Logger): Promise<ProviderIdentity | undefined> {
    try {
      const config = await this.configurationOf(settings, log);
      if (!config) return undefined;
      const current = new URL(`${p.redirectUri}?${query.toString()}`);
      if (settings.provider === 'github') return await this.githubIdentity(config, current, state, p);
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: p.verifier,
        expectedState: state,
        expectedNonce: p.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) return undefined;
      if (typeof claims.email === 'string') return { subject: claims.sub, email: claims.email, emailVerified: claims.email_verified === true };
      // Some issuers leave the email out of the ID token: the userinfo endpoint, for the same subject, has it.
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      return { subject: claims.sub, email: typeof info.email === 'string' ? info.email : undefined, emailVerified: info.email_verified === true };
    } catch (err) {
      log.warn({ err, provider: settings.provider }, 'sign-in with a provider: the provider’s answer did not hold');
      return undefined;
    }
  }

  /** GitHub: the code exchanged (no ID token), then the user's id and its primary email, verified or not. */
  private async githubIdentity(config: oidc.Configuration, current: URL, state: string, p: Pending): Promise<ProviderIdentity | undefined> {
    const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: p.verifier, expectedState: state });
    const api = this.d.config.dashboard.socialSignIn.github.apiBaseUrl.replace(/\/$/, '');
    const read = async (path: string): Promise<unknown> => {
      const headers = new Headers({ accept: 'application/vnd.github+json' });
      const response = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${api}${path}`), 'GET', undefined, headers);
      if (!response.ok) throw new Error(`GitHub ${path} answered ${response.status}`);
      return response.json();
    };
    const user = (await read('/user')) as { id?: unknown };
    const emails = (await read('/user/emails')) as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>;
    if (typeof user.id !== 'number' || !Array.isArray(emails)) return undefined;
    const primary = emails.find((e) => e.primary === true && typeof e.email === 'string');
    return { subject: String(user.id), email: primary?.email as string | undefined, emailVerified: primary?.verified === true };
  }

  private async enabled(provider: string): Promise<SocialProviderSettings | undefined> {
    if (!isSocialProvider(provider)) return undefined;
    const settings = await this.d.store.socialSignIn.provider(provider);
    return settings?.enabled && settings.clientSecretEnc !== null ? settings : undefined;
  }

  /** The provider's openid-client configuration: discovered at Google's issuer, GitHub's fixed endpoints otherwise. */
  private async configurationOf(s: SocialProviderSettings, log: Logger): Promise<oidc.Configuration | undefined> {
    const secret = this.d.secrets.open(s.clientSecretEnc ?? '');
    const allowHttp = this.d.config.dashboard.socialSignIn.allowHttpLoopback;
    if (s.provider === 'github') {
      const web = this.d.config.dashboard.socialSignIn.github.webBaseUrl.replace(/\/$/, '');
      const metadata = { issuer: web, authorization_endpoint: `${web}/login/oauth/authorize`, token_endpoint: `${web}/login/oauth/access_token` };
      const config = new oidc.Configuration(metadata, s.clientId, secret);
      // Plain HTTP only to a loopback double, and only where the configuration allows it (tests).
      if (allowHttp && isHttpLoopback(web)) oidc.allowInsecureRequests(config);
      return config;
    }
    const issuer = s.issuer ?? '';
    const insecure = allowHttp && isHttpLoopback(issuer);
    try {
      return await oidc.discovery(new URL(issuer), s.clientId, secret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : {});
    } catch (err) {
      log.warn({ err, provider: s.provider, issuer }, 'sign-in with a provider: discovery failed');
      return undefined;
    }
  }
}

const refusal = (r: SocialRefusal): SocialFinish => ({ ok: false, refusal: r });
