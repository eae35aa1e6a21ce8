// Two-step sign-in by mail: once a password is right for a user whose role the account's settings name, a
// six-digit code is mailed to them (Tern's own mail) and a challenge token answered; the code signs in once,
// until it expires (dashboard.twoStep.codeTtlS), within dashboard.twoStep.maxTries wrong tries. Only hashes are
// stored: the token's, and the code's together with the token (which the database never holds), so neither a
// code nor a way to try codes offline can be read from it. Tries are throttled by the login's own windows (login.ts).
import { randomBytes, randomInt } from 'node:crypto';
import { isOperator, type User } from '../../domain/user.js';
import type { LoginSettings } from '../../domain/login-security.js';
import type { TwoStepTry } from '../../store/two-step.js';
import { sha256Hex } from '../../sha256.js';
import type { Logger } from '../../log.js';
import type { SystemMail, SystemMailResult } from '../system-mail.js';
import { isoAt, type IdentityDeps } from './deps.js';
import { hashToken } from './sessions.js';

export interface TwoStepChallenge {
  /** What the sign-in form sends back with the code. */
  challenge: string;
  expiresAt: string;
  /** The address the code went to, partly hidden (a.b…@example.com): the form says where to look. */
  sentTo: string;
}

const CODE_DIGITS = 6;

/** The code's hash, salted with the challenge token the database does not hold. */
const codeHashOf = (challenge: string, code: string): string => sha256Hex(`${challenge}:${code}`);

/** An address as the form shows it: the first two characters of the local part, then the domain. */
export const partlyHidden = (email: string): string => {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, Math.min(2, at))}…${email.slice(at)}`;
};

export class TwoStepSignIn {
  constructor(
    private readonly d: IdentityDeps,
    private readonly mail: SystemMail | undefined,
  ) {}

  /** Whether the account's settings ask `user` for a mailed code (an operator is no account's). */
  applies(settings: LoginSettings, user: User): boolean {
    return !isOperator(user) && settings.twoStepRoles.includes(user.role);
  }

  /** Stores a challenge (in place of the user's unused one) and mails its code; refused when no mail can go. */
  async challenge(user: User, from: string, log: Logger): Promise<SystemMailResult<TwoStepChallenge>> {
    if (!this.mail) return { ok: false, refusal: { kind: 'system_mail_unavailable', reason: 'Two-step sign-in mails a code, and this process sends no mail.' } };
    const sender = await this.mail.sender();
    if (!sender.ok) return sender;
    const challenge = randomBytes(32).toString('base64url');
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    const at = this.d.now();
    const expiresAt = isoAt(at + this.d.config.dashboard.twoStep.codeTtlS * 1000);
    // Stored before it is mailed: the code works by the time the mail can arrive.
    await this.d.store.twoStepChallenges.create({ tokenHash: hashToken(challenge), userId: user.id, codeHash: codeHashOf(challenge, code), at: isoAt(at), expiresAt });
    const minutes = String(Math.round(this.d.config.dashboard.twoStep.codeTtlS / 60));
    const message = await this.mail.composeRequired('two_step_code', user.email, { 'code.value': code, 'code.minutes': minutes, 'request.address': from });
    const sent = await this.mail.sendAs(sender.value, message, log);
    if (!sent.ok) return sent;
    log.info({ user: user.id, msg_id: sent.value.messageId }, 'two-step sign-in code mailed');
    return { ok: true, value: { challenge, expiresAt, sentTo: partlyHidden(user.email) } };
  }

  /** The user a challenge was made for, if it exists (spent or not): whose windows a try takes its place in. */
  userOf(challenge: string): Promise<number | undefined> {
    return this.d.store.twoStepChallenges.userOf(hashToken(challenge));
  }

  /** Tries a code against a challenge, decided in the store's one write. */
  attempt(challenge: string, code: string): Promise<TwoStepTry> {
    const { maxTries } = this.d.config.dashboard.twoStep;
    return this.d.store.twoStepChallenges.attempt(hashToken(challenge), codeHashOf(challenge, code), isoAt(this.d.now()), maxTries);
  }
}
