// Logging in to the dashboard: throttled per email and per client address (attempts in a sliding window on
// Redis, each taking its place before its password is checked and giving it back when it succeeds), the same
// answer and the same work for an unknown email as for a wrong password, a new session at every success, and
// every attempt recorded in the auth log.
import { emailKey, type Session, type User } from '../../domain/user.js';
import type { AuthResult } from '../../domain/login-security.js';
import { refundHits, reserveWindows, type Reservation, type Window } from '../../rate-limit.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import { accountOfUser, clip, isoAt, type IdentityDeps } from './deps.js';
import { dummyHash, verifyPassword } from './passwords.js';
import type { LoginSecurity } from './login-security.js';
import type { Nonces } from './nonces.js';
import type { Sessions } from './sessions.js';
import type { Logger } from '../../log.js';

export interface LoginAttempt {
  /** As typed; compared without regard to case. */
  email: string;
  password: string;
  address: string;
  userAgent: string;
}

export type LoginRefusal = { kind: 'invalid_credentials' } | { kind: 'throttled'; retryAfterS: number };

export type LoginResult = { ok: true; token: string; session: Session; user: User; nonce: string } | { ok: false; refusal: LoginRefusal };

export class Logins {
  constructor(
    private readonly d: IdentityDeps,
    private readonly security: LoginSecurity,
    private readonly sessions: Sessions,
    private readonly nonces: Nonces,
  ) {
    // Made now, so that the first login for an unknown email does not also pay for making it.
    void dummyHash();
  }

  async login(a: LoginAttempt, log: Logger): Promise<LoginResult> {
    const user = await this.d.store.users.findByEmail(a.email);
    const accountId = await accountOfUser(this.d, user);
    const windows = await this.windowsFor(a, accountId);
    const record = (result: AuthResult) => this.record(a, result, user, accountId);
    // The attempt takes its place in both windows (atomically, one script) before its password is checked: however
    // many arrive at once, at most the limit are checked, and a full window checks none (no Argon2 work either).
    const reservation = await reserveWindows(this.d.redis, windows);
    if (reservation.granted === 0) {
      await record('throttled');
      return { ok: false, refusal: { kind: 'throttled', retryAfterS: waitOf(reservation) } };
    }
    // Unknown or not, one hash is read and one Argon2id verification runs.
    const stored = await this.d.store.users.passwordHash(user?.id ?? 0);
    const matches = await verifyPassword(stored ?? (await dummyHash()), a.password);
    if (!user || !stored || !matches) {
      // The places taken stay: a failure is what the windows count.
      await record('failure');
      return { ok: false, refusal: { kind: 'invalid_credentials' } };
    }
    // A success clears the email's failures, and gives the address its place back (not the address's other
    // failures: one address may try many emails).
    await Promise.all([this.d.redis.del(windows[0].key), refundHits(this.d.redis, reservation, [windows[1].key])]);
    const { token, session } = await this.sessions.start(user, { userAgent: a.userAgent, address: a.address });
    await record('success');
    log.info({ user: user.id, session: session.id }, 'dashboard login');
    return { ok: true, token, session, user, nonce: this.nonces.nonceFor(session) };
  }

  /** The email's window (the account's settings) and the address's (the product's: an address is no account's). */
  private async windowsFor(a: LoginAttempt, accountId: number | undefined): Promise<[Window, Window]> {
    const settings = await this.security.effective(accountId);
    const c = this.d.config.dashboard.login;
    return [
      { key: redisKeys.loginFailures('email', sha256Hex(emailKey(a.email))), limit: settings.failuresPerEmail, windowS: settings.windowMinutes * 60 },
      { key: redisKeys.loginFailures('address', sha256Hex(a.address)), limit: c.failuresPerAddress, windowS: c.windowMinutes * 60 },
    ];
  }

  private async record(a: LoginAttempt, result: AuthResult, user: User | undefined, accountId: number | undefined): Promise<void> {
    await this.d.store.authLog.record({
      accountId: accountId ?? null,
      userId: user?.id ?? null,
      email: clip(a.email, 254),
      address: clip(a.address, 64),
      userAgent: clip(a.userAgent, 512),
      result,
      at: isoAt(this.d.now()),
    });
  }
}

/** Seconds to wait before a refused attempt may be made: until the fullest window has room again. */
function waitOf(reservation: Reservation): number {
  return Math.max(...reservation.decisions.filter((d) => d.remaining === 0).map((d) => d.resetS), 1);
}
