// Single sign-on between Tern dashboards (FluentAuth's child sites). An operator of dashboard A registers B as a
// child and is shown a shared secret once; an operator of B registers A as a parent with that secret. A signed-in
// user of A asks for a sign-in link to B: A signs a token (the pair, the user's email, a one-time id, an expiry of
// dashboard.sso.tokenTtlS) with the secret; B verifies it itself (the signature in constant time, the expiry, the
// pair known), spends its one-time id in one INSERT (a replay finds it taken) and starts a session for its own
// user of that email through the same session path as a password's login; an unknown email is refused, never
// created. A also answers validate-token for a child that would rather ask (it proves itself with the secret).
// Every presentation of a token takes its place in a per-address window before anything is checked.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../../secret-box.js';
import { checkSiteUrl, SITE_ID_PATTERN, SSO_NAME_MAX, type SsoClaims, type SsoSite, type SsoSiteKind } from '../../domain/single-sign-on.js';
import { normalisedSitePath } from '../../domain/sign-in-redirects.js';
import type { Operator, Session, User } from '../../domain/user.js';
import { refundHits, reserveWindows } from '../../rate-limit.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import type { Logger } from '../../log.js';
import { auditEntry } from '../audit-log.js';
import { done, invalidFields, notFound, refuse, type FieldProblem, type Managed } from '../management-refusals.js';
import { accountOfUser, clip, isoAt, type IdentityDeps } from './deps.js';
import type { ClientInfo, Sessions } from './sessions.js';
import type { Nonces } from './nonces.js';
import type { LoginSecurity } from './login-security.js';
import { signSsoToken, unverifiedSiteId, verifySsoToken } from './sso-token.js';

export interface SsoDeps extends IdentityDeps {
  secrets: SecretBox;
}

/** Why a token was refused: each is told apart in the server's log, and answered alike (a prober learns nothing). */
export type SsoTokenProblem = 'unknown_site' | 'bad_signature' | 'expired' | 'replayed' | 'unknown_user' | 'bad_secret';

export type SsoRefusal = { kind: 'token_refused'; problem: SsoTokenProblem } | { kind: 'throttled'; retryAfterS: number };

export type SsoSignIn = { ok: true; token: string; session: Session; user: User; nonce: string; redirectTo: string | null } | { ok: false; refusal: SsoRefusal };

export type SsoValidation = { ok: true; email: string; expiresAt: string; redirectTo: string | null } | { ok: false; refusal: SsoRefusal };

export interface ChildRegistration {
  site: SsoSite;
  /** Shown once: the child's operator registers this dashboard as its parent with it. */
  secret: string;
}

export interface LoginLink {
  site: SsoSite;
  url: string;
  expiresAt: string;
}

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const HOUR_S = 3600;
export const SSO_ACCEPT_PATH = '/sso/accept';

const refusedToken = (problem: SsoTokenProblem) => ({ ok: false as const, refusal: { kind: 'token_refused' as const, problem } });

/** Compares two secrets in constant time whatever their lengths (their digests are compared). */
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export class SingleSignOn {
  constructor(
    private readonly d: SsoDeps,
    private readonly sessions: Sessions,
    private readonly nonces: Nonces,
    private readonly security: LoginSecurity,
  ) {}

  /** The paired dashboards of a kind, without secrets. */
  list(kind: SsoSiteKind): Promise<SsoSite[]> {
    return this.d.store.singleSignOn.list(kind);
  }

  /** Registers a child: a new site id and secret; the secret is answered once and kept sealed (it signs tokens). */
  registerChild(operator: Operator, wanted: { name: string; url: string }): Promise<Managed<ChildRegistration>> {
    const secret = randomBytes(32).toString('base64url');
    return this.register(operator, { kind: 'child', ...wanted, siteId: randomBytes(16).toString('hex'), secret }, []);
  }

  /** Registers a parent with the site id and secret its operator was shown; kept sealed (it verifies tokens). */
  registerParent(operator: Operator, wanted: { name: string; url: string; siteId: string; secret: string }): Promise<Managed<ChildRegistration>> {
    const problems: FieldProblem[] = [];
    if (!SITE_ID_PATTERN.test(wanted.siteId)) problems.push({ field: 'site_id', message: 'site_id must be the 32 hexadecimal digits the parent answered' });
    if (!SECRET_PATTERN.test(wanted.secret)) problems.push({ field: 'secret', message: 'secret must be the 43 characters the parent answered' });
    return this.register(operator, { kind: 'parent', ...wanted }, problems);
  }

  private async register(
    operator: Operator,
    s: { kind: SsoSiteKind; name: string; url: string; siteId: string; secret: string },
    problems: FieldProblem[],
  ): Promise<Managed<ChildRegistration>> {
    const name = s.name.trim();
    if (name === '' || name.length > SSO_NAME_MAX || /\p{Cc}/u.test(name))
      problems.unshift({ field: 'name', message: `name must have 1 to ${SSO_NAME_MAX} characters, no control characters` });
    const url = checkSiteUrl(s.url, this.d.config.webhooks.allowPrivate);
    if (!url.ok) return invalidFields([{ field: 'url', message: url.reason }, ...problems]);
    const [first, ...rest] = problems;
    if (first) return invalidFields([first, ...rest]);
    const at = isoAt(this.d.now());
    const created = await this.d.store.singleSignOn.create(
      { kind: s.kind, siteId: s.siteId, name, url: url.url, secretSealed: this.d.secrets.seal(s.secret), at },
      (site) =>
        auditEntry(operator, { action: 'sso_site.create', target: { kind: 'sso_site', id: String(site.id) }, before: null, after: snapshot(site), reason: '' }, at),
    );
    if (created === 'exists') return refuse({ kind: 'invalid_field', field: 'url', message: `a ${s.kind} site with this url or site id is registered already` });
    return done({ site: created, secret: s.secret });
  }

  /** Removes a paired dashboard (its tokens are refused from now on). */
  async remove(operator: Operator, id: number): Promise<Managed<SsoSite>> {
    const at = isoAt(this.d.now());
    const removed = await this.d.store.singleSignOn.remove(id, (site) =>
      auditEntry(operator, { action: 'sso_site.remove', target: { kind: 'sso_site', id: String(site.id) }, before: snapshot(site), after: null, reason: '' }, at),
    );
    return removed ? done(removed) : notFound('sso_site', 'No paired dashboard has this id.');
  }

  /** A signed-in user's link to a child dashboard: signed, naming the user's email, working once until it expires. */
  async loginLink(user: User, id: number, redirectTo: string | undefined): Promise<Managed<LoginLink>> {
    const site = await this.d.store.singleSignOn.get(id);
    if (!site || site.kind !== 'child') return notFound('sso_site', 'No child dashboard has this id.');
    const to = redirectTo === undefined || redirectTo === '' ? null : normalisedSitePath(redirectTo);
    if (to === undefined)
      return refuse({ kind: 'invalid_field', field: 'redirect_to', message: 'redirect_to must be a path of the other dashboard (starting with one /)' });
    const withSecret = await this.d.store.singleSignOn.withSecret('child', site.siteId);
    if (!withSecret) return notFound('sso_site', 'No child dashboard has this id.');
    const exp = this.d.now() + this.d.config.dashboard.sso.tokenTtlS * 1000;
    const claims: SsoClaims = { sid: site.siteId, sub: user.email, jti: randomBytes(16).toString('hex'), exp, to };
    const token = signSsoToken(claims, this.d.secrets.open(withSecret.secretSealed));
    return done({ site, url: `${site.url}${SSO_ACCEPT_PATH}?${new URLSearchParams({ token }).toString()}`, expiresAt: isoAt(exp) });
  }

  /**
   * What a parent's token would sign in as, checked (pair, signature, expiry) but not spent: the page that asks the
   * user to continue shows it. The sign-in itself is a POST from this site's own page (accept), so another site
   * cannot sign a browser in here with a token of its own choosing (login CSRF).
   */
  async preview(token: string, client: ClientInfo, log: Logger): Promise<{ ok: true; email: string; from: SsoSite } | { ok: false; refusal: SsoRefusal }> {
    const checked = await this.redeem('parent', token, client, undefined, log, false);
    return checked.ok ? { ok: true, email: checked.claims.sub, from: checked.site } : checked;
  }

  /** A parent's token presented to this dashboard: verified, spent once, and a session for this dashboard's user of its email. */
  async accept(token: string, client: ClientInfo, log: Logger): Promise<SsoSignIn> {
    const redeemed = await this.redeem('parent', token, client, undefined, log);
    if (!redeemed.ok) return redeemed;
    const claims = redeemed.claims;
    const user = await this.d.store.users.findByEmail(claims.sub);
    const accountId = await accountOfUser(this.d, user);
    await this.record(claims.sub, client, user, accountId, user ? 'success' : 'failure');
    if (!user) {
      log.warn({ site: claims.sid }, 'single sign-on refused: no user of that email here');
      return refusedToken('unknown_user');
    }
    const { token: cookie, session } = await this.sessions.start(user, client);
    log.info({ user: user.id, session: session.id, site: claims.sid }, 'dashboard sign-in by single sign-on');
    // The parent checked the path; it is checked again here, where the redirect happens.
    const asked = claims.to === null ? undefined : normalisedSitePath(claims.to);
    const redirectTo = asked ?? (await this.security.landing(user, 'login'));
    return { ok: true, token: cookie, session, user, nonce: this.nonces.nonceFor(session), redirectTo };
  }

  /** validate-token: a child that asks instead of verifying (proving itself with the pair's secret); the token is spent here. */
  async validate(r: { siteId: string; secret: string; token: string }, client: ClientInfo, log: Logger): Promise<SsoValidation> {
    const redeemed = await this.redeem('child', r.token, client, r, log);
    if (!redeemed.ok) return redeemed;
    return { ok: true, email: redeemed.claims.sub, expiresAt: isoAt(redeemed.claims.exp), redirectTo: redeemed.claims.to };
  }

  /**
   * The checks every presentation of a token goes through, in order: a place in the address's window (before
   * anything else), the pair known, the caller's secret when it gives one, the signature (constant time), the
   * expiry, then the one-time id spent in one INSERT (a replay, or a second use at once, finds it taken).
   */
  private async redeem(
    kind: SsoSiteKind,
    token: string,
    client: ClientInfo,
    caller: { siteId: string; secret: string } | undefined,
    log: Logger,
    spend = true,
  ): Promise<{ ok: true; claims: SsoClaims; site: SsoSite } | { ok: false; refusal: SsoRefusal }> {
    const window = { key: redisKeys.ssoTokens(sha256Hex(client.address)), limit: this.d.config.dashboard.sso.perAddressPerHour, windowS: HOUR_S };
    const reservation = await reserveWindows(this.d.redis, [window]);
    if (reservation.granted === 0) return { ok: false, refusal: { kind: 'throttled', retryAfterS: Math.max(reservation.decisions[0]?.resetS ?? 1, 1) } };
    const siteId = caller?.siteId ?? unverifiedSiteId(token);
    const paired = siteId === undefined || !SITE_ID_PATTERN.test(siteId) ? undefined : await this.d.store.singleSignOn.withSecret(kind, siteId);
    if (!paired) return this.refused(siteId, 'unknown_site', log);
    const problem = await this.problemOf({ siteId: paired.site.siteId, secret: this.d.secrets.open(paired.secretSealed) }, token, caller, spend);
    if (typeof problem === 'string') return this.refused(siteId, problem, log);
    // A presentation that passed gives its place back: the window counts refusals, as the login's does.
    await refundHits(this.d.redis, reservation, [window.key]);
    return { ok: true, claims: problem, site: paired.site };
  }

  private refused(siteId: string | undefined, problem: SsoTokenProblem, log: Logger): { ok: false; refusal: SsoRefusal } {
    log.warn({ site: siteId, problem }, 'single sign-on token refused');
    return refusedToken(problem);
  }

  /** The token's claims, or what is wrong with it, for the pair `paired` (its site id and opened secret). */
  private async problemOf(
    paired: { siteId: string; secret: string },
    token: string,
    caller: { siteId: string; secret: string } | undefined,
    spend: boolean,
  ): Promise<SsoClaims | SsoTokenProblem> {
    if (caller && !sameSecret(paired.secret, caller.secret)) return 'bad_secret';
    const claims = verifySsoToken(token, paired.secret);
    if (!claims || claims.sid !== paired.siteId) return 'bad_signature';
    const now = this.d.now();
    if (claims.exp <= now) return 'expired';
    if (!spend) return claims;
    const spent = await this.d.store.singleSignOn.spend(claims.sid, claims.jti, isoAt(claims.exp), isoAt(now));
    return spent ? claims : 'replayed';
  }

  private async record(email: string, client: ClientInfo, user: User | undefined, accountId: number | undefined, result: 'success' | 'failure'): Promise<void> {
    await this.d.store.authLog.record({
      accountId: accountId ?? null,
      userId: user?.id ?? null,
      email: clip(email, 254),
      address: clip(client.address, 64),
      userAgent: clip(client.userAgent, 512),
      result,
      method: 'sso',
      at: isoAt(this.d.now()),
    });
  }
}

/** A site as the audit log records it: never its secret. */
const snapshot = (s: SsoSite) => ({ kind: s.kind, site_id: s.siteId, name: s.name, url: s.url });
