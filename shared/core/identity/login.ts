// Logging in to the dashboard: throttled per email and per client address (attempts in a sliding window on
// Redis, each taking its place before its password is checked and giving it back when it succeeds), the same
// answer and the same work for an unknown email as for a wrong password, a new session at every success, and
// every attempt recorded in the auth log.
import { emailKey, type Session, type User } from '../../domain/user.js';
import type { AuthMethod, AuthResult } from '../../domain/login-security.js';
import { refundHits, reserveWindows, type Reservation, type Window } from '../../rate-limit.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import { accountOfUser, clip, isoAt, type IdentityDeps } from './deps.js';
import { dummyHash, verifyPassword } from './passwords.js';
import type { LoginSecurity } from './login-security.js';
import type { Nonces } from './nonces.js';
import { hashToken, type Sessions } from './sessions.js';
import type { Logger } from '../../log.js';
import type { IdentityRefusal } from './refusals.js';
import type { TwoStepSignIn } from './two-step.js';
import type { LoginSettings } from '../../domain/login-security.js';
import type { SystemMail } from '../system-mail.js';
import { isOperator } from '../../domain/user.js';

export interface LoginAttempt {
  /** As typed; compared without regard to case. */
  email: string;
  password: string;
  address: string;
  userAgent: string;
}

/** A second step: the challenge a password's success answered, and the code mailed for it. */
export interface TwoStepAttempt {
  challenge: string;
  code: string;
  address: string;
  userAgent: string;
}

/** A mailed sign-in link followed: its token, and the client. */
export interface MagicLinkAttempt {
  token: string;
  address: string;
  userAgent: string;
}

export type LoginRefusal = Extract<
  IdentityRefusal,
  {
    kind:
      | 'invalid_credentials'
      | 'throttled'
      | 'two_step_required'
      | 'two_step_code_wrong'
      | 'two_step_spent'
      | 'system_mail_unavailable'
      | 'rate_limited'
      | 'magic_link_unusable';
  }
>;

export type LoginResult = { ok: true; token: string; session: Session; user: User; nonce: string } | { ok: false; refusal: LoginRefusal };

/** Who tries to sign in: the email as typed (or the user's, for a second step), and the client. */
export interface Attempt {
  email: string;
  address: string;
  userAgent: string;
}

export class Logins {
  constructor(
    private readonly d: IdentityDeps,
    private readonly security: LoginSecurity,
    private readonly sessions: Sessions,
    private readonly nonces: Nonces,
    private readonly twoStep: TwoStepSignIn,
    private readonly mail: SystemMail | undefined,
  ) {
    // Made now, so that the first login for an unknown email does not also pay for making it.
    void dummyHash();
  }

  async login(a: LoginAttempt, log: Logger): Promise<LoginResult> {
    const user = await this.d.store.users.findByEmail(a.email);
    const accountId = await accountOfUser(this.d, user);
    const settings = await this.security.effective(accountId);
    const windows = this.windowsFor(a.email, a.address, settings);
    const record = (result: AuthResult) => this.record(a, result, user, accountId);
    // The attempt takes its place in both windows (atomically, one script) before its password is checked: however
    // many arrive at once, at most the limit are checked, and a full window checks none (no Argon2 work either).
    const reservation = await reserveWindows(this.d.redis, windows);
    if (reservation.granted === 0) return this.throttled(a, reservation, settings, accountId, record, log);
    // Unknown or not, one hash is read and one Argon2id verification runs.
    const stored = await this.d.store.users.passwordHash(user?.id ?? 0);
    const matches = await verifyPassword(stored ?? (await dummyHash()), a.password);
    if (!user || !stored || !matches) {
      // The places taken stay: a failure is what the windows count.
      await record('failure');
      return { ok: false, refusal: { kind: 'invalid_credentials' } };
    }
    if (this.twoStep.applies(settings, user)) {
      // The places taken stay until the code is right: a password alone clears no failure.
      const challenged = await this.twoStep.challenge(user, a.address, log);
      return { ok: false, refusal: challenged.ok ? { kind: 'two_step_required', ...challenged.value } : challenged.refusal };
    }
    return this.signIn(user, a, windows, reservation, record, log);
  }

  /**
   * The second step: the code mailed for a challenge. A try takes its place in the user's windows before the code
   * is checked, as a password does: wrong codes count as failed logins and lock the email out as they do.
   */
  async verifyCode(a: TwoStepAttempt, log: Logger): Promise<LoginResult> {
    const userId = await this.twoStep.userOf(a.challenge);
    const user = userId === undefined ? undefined : await this.d.store.users.get(userId);
    if (!user) return { ok: false, refusal: { kind: 'two_step_spent' } };
    const attempt = { email: user.email, address: a.address, userAgent: a.userAgent };
    const accountId = await accountOfUser(this.d, user);
    const settings = await this.security.effective(accountId);
    const windows = this.windowsFor(user.email, a.address, settings);
    const record = (result: AuthResult) => this.record(attempt, result, user, accountId);
    const reservation = await reserveWindows(this.d.redis, windows);
    if (reservation.granted === 0) return this.throttled(attempt, reservation, settings, accountId, record, log);
    const tried = await this.twoStep.attempt(a.challenge, a.code);
    if (tried.outcome === 'used') return this.signIn(user, attempt, windows, reservation, record, log);
    await record('failure');
    return { ok: false, refusal: tried.outcome === 'wrong' ? { kind: 'two_step_code_wrong', triesLeft: tried.triesLeft } : { kind: 'two_step_spent' } };
  }

  /**
   * A provider's callback (core/identity/social-sign-in.ts) takes its place in the client address's window before
   * its code is exchanged, as a password does before it is checked: a full window exchanges nothing.
   */
  async reserveProviderAttempt(address: string): Promise<Reservation> {
    return reserveWindows(this.d.redis, [this.addressWindow(address)]);
  }

  /** A provider's sign-in refused (a bad state, an unknown or unverified email): recorded; its address place stays. */
  async providerRefused(a: Attempt, method: AuthMethod, result: 'failure' | 'throttled', user?: User): Promise<void> {
    await this.record(a, result, user, await accountOfUser(this.d, user), method);
  }

  /**
   * A sign-in a provider vouched for: the email's window as a password's (a locked-out email stays locked out
   * whatever the method), then the same session, cleared failures and auth log entry, with its method. No
   * two-step code: the provider's own sign-in stands for it (docs/decisions.md, sign-in with a provider).
   */
  async providerSignIn(user: User, a: Attempt, method: AuthMethod, addressPlace: Reservation, log: Logger): Promise<LoginResult> {
    const accountId = await accountOfUser(this.d, user);
    const settings = await this.security.effective(accountId);
    const windows = this.windowsFor(user.email, a.address, settings);
    const record = (result: AuthResult) => this.record(a, result, user, accountId, method);
    const emailPlace = await reserveWindows(this.d.redis, [windows[0]]);
    if (emailPlace.granted === 0) return this.throttled(a, emailPlace, settings, accountId, record, log);
    return this.signIn(user, a, windows, addressPlace, record, log);
  }

  /**
   * A mailed sign-in link followed (its form posted, never its GET: mail scanners fetch links). The try takes its
   * place in the client address's window before the token is looked at; the link is used in one UPDATE (of two
   * uses at once one only succeeds), and then the account must still allow it for the user (the switch on, the
   * role not a two-step one): a link spent on a refused sign-in stays spent. Then the password login's path:
   * the email's failures cleared, a new session, an auth log entry (method magic_link).
   */
  async signInWithLink(a: MagicLinkAttempt, log: Logger): Promise<LoginResult> {
    const reservation = await reserveWindows(this.d.redis, [this.addressWindow(a.address)]);
    if (reservation.granted === 0) return { ok: false, refusal: { kind: 'throttled', retryAfterS: waitOf(reservation) } };
    const userId = a.token === '' ? undefined : await this.d.store.magicLinks.use(hashToken(a.token), isoAt(this.d.now()));
    const user = userId === undefined ? undefined : await this.d.store.users.get(userId);
    if (!user) return { ok: false, refusal: { kind: 'magic_link_unusable' } };
    const accountId = await accountOfUser(this.d, user);
    const settings = await this.security.effective(accountId);
    const attempt = { email: user.email, address: a.address, userAgent: a.userAgent };
    const record = (result: AuthResult) => this.record(attempt, result, user, accountId, 'magic_link');
    if (!this.linkAllowed(settings, user)) {
      await record('failure');
      return { ok: false, refusal: { kind: 'magic_link_unusable' } };
    }
    return this.signIn(user, attempt, this.windowsFor(user.email, a.address, settings), reservation, record, log);
  }

  /**
   * Whether `user` may sign in by a mailed link: the account's switch on, and its role not one the account asks
   * for a password and a code (a link proves the mailbox only: one factor where the account asked for two).
   * Operators are no account's users: never.
   */
  linkAllowed(settings: LoginSettings, user: User): boolean {
    return !isOperator(user) && settings.magicLink && !this.twoStep.applies(settings, user);
  }

  /** A success clears the email's failures, gives the address its place back, and starts a session. */
  private async signIn(
    user: User,
    a: Attempt,
    windows: [Window, Window],
    reservation: Reservation,
    record: (result: AuthResult) => Promise<void>,
    log: Logger,
  ): Promise<LoginResult> {
    // Not the address's other failures: one address may try many emails.
    await Promise.all([this.d.redis.del(windows[0].key), refundHits(this.d.redis, reservation, [windows[1].key])]);
    const { token, session } = await this.sessions.start(user, { userAgent: a.userAgent, address: a.address });
    await record('success');
    log.info({ user: user.id, session: session.id }, 'dashboard login');
    return { ok: true, token, session, user, nonce: this.nonces.nonceFor(session) };
  }

  /** A refused attempt: recorded, and the first refusal of an email's lockout mailed to its account's owners when they asked. */
  private async throttled(
    a: Attempt,
    reservation: Reservation,
    settings: LoginSettings,
    accountId: number | undefined,
    record: (result: AuthResult) => Promise<void>,
    log: Logger,
  ): Promise<LoginResult> {
    await record('throttled');
    const emailLocked = reservation.decisions[0]?.remaining === 0;
    if (emailLocked && settings.notifyOnLockout && accountId !== undefined) void this.mailLockout(a, settings, accountId, log);
    return { ok: false, refusal: { kind: 'throttled', retryAfterS: waitOf(reservation) } };
  }

  /** Mails the account's owners once per lockout (a Redis mark for the window); never fails the login's answer. */
  private async mailLockout(a: Attempt, settings: LoginSettings, accountId: number, log: Logger): Promise<void> {
    try {
      const first = await this.d.redis.set(redisKeys.lockoutNotified(sha256Hex(emailKey(a.email))), '1', 'EX', settings.windowMinutes * 60, 'NX');
      if (first !== 'OK' || !this.mail) return;
      const owners = (await this.d.store.users.listByTeam(accountId)).filter((u) => u.role === 'owner');
      for (const owner of owners) {
        const values = { 'lockout.email': a.email, 'lockout.address': a.address, 'lockout.minutes': String(settings.windowMinutes) };
        const message = await this.mail.compose('lockout_notice', owner.email, values);
        if (!message) return;
        const sent = await this.mail.send(message, log);
        log.info({ account: accountId, owner: owner.id, sent: sent.ok }, 'lockout notice to an owner');
      }
    } catch (err) {
      log.error({ err, account: accountId }, 'lockout notice failed');
    }
  }

  /** The email's window (the account's settings) and the address's (the product's: an address is no account's). */
  private windowsFor(email: string, address: string, settings: LoginSettings): [Window, Window] {
    return [
      { key: redisKeys.loginFailures('email', sha256Hex(emailKey(email))), limit: settings.failuresPerEmail, windowS: settings.windowMinutes * 60 },
      this.addressWindow(address),
    ];
  }

  private addressWindow(address: string): Window {
    const c = this.d.config.dashboard.login;
    return { key: redisKeys.loginFailures('address', sha256Hex(address)), limit: c.failuresPerAddress, windowS: c.windowMinutes * 60 };
  }

  private async record(a: Attempt, result: AuthResult, user: User | undefined, accountId: number | undefined, method: AuthMethod = 'password'): Promise<void> {
    await this.d.store.authLog.record({
      accountId: accountId ?? null,
      userId: user?.id ?? null,
      email: clip(a.email, 254),
      address: clip(a.address, 64),
      userAgent: clip(a.userAgent, 512),
      result,
      method,
      at: isoAt(this.d.now()),
    });
  }
}

/** Seconds to wait before a refused attempt may be made: until the fullest window has room again. */
function waitOf(reservation: Reservation): number {
  return Math.max(...reservation.decisions.filter((d) => d.remaining === 0).map((d) => d.resetS), 1);
}
