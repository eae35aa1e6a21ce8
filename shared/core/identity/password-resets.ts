// Forgot password: a user asks for a link by email; Tern mails one (from its own sender) carrying a random
// token, of which only the sha256 is kept, that sets a new password once, until it expires
// (dashboard.passwordReset.ttlS). The answer to a request never says whether the email is a user's: the checks
// that can refuse it depend on the request alone, and the mail goes out after the answer. Setting the password
// ends every session of the user, as an operator's reset does.
import { randomBytes } from 'node:crypto';
import { emailKey, type User } from '../../domain/user.js';
import { passwordResetState, type PasswordResetState } from '../../domain/password-reset.js';
import { hitWindow } from '../../rate-limit.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import type { Logger } from '../../log.js';
import type { SystemMail, SystemSender } from '../system-mail.js';
import { isoAt, type IdentityDeps } from './deps.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { mailTime } from '../email-templates.js';
import { granted, invalidField, refused, type Identified } from './refusals.js';
import { hashToken, type ClientInfo, type Sessions } from './sessions.js';
import { emailProblem } from './users.js';

export interface PasswordResetRequest {
  /** As typed; matched without regard to case. */
  email: string;
  client: ClientInfo;
  /** scheme://host the request was addressed to (the link's base when dashboard.publicUrl is unset and it is loopback). */
  origin: string;
}

/** What a link's token stands for now. */
export type PasswordResetLink = { state: 'valid'; user: User; expiresAt: string } | { state: Exclude<PasswordResetState, 'valid'> };

export interface PasswordResetCompletion {
  token: string;
  password: string;
}

/** Where the link leads: the page that sets the new password. */
export const resetLink = (dashboardUrl: string, token: string): string => `${dashboardUrl}/reset-password?token=${encodeURIComponent(token)}`;

const HOUR_S = 3600;
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The origin links lead to: dashboard.publicUrl; without it, the request's origin only when it is a loopback host.
 * Anyone may ask for a reset, with any Host header: a link built from another host would carry the token there.
 */
export function resetLinkBase(publicUrl: string | null, requestOrigin: string): string | undefined {
  if (publicUrl !== null) return new URL(publicUrl).origin;
  try {
    const url = new URL(requestOrigin);
    return LOOPBACK_HOSTS.has(url.hostname) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export class PasswordResets {
  constructor(
    private readonly d: IdentityDeps,
    private readonly mail: SystemMail,
    private readonly sessions: Sessions,
  ) {}

  /**
   * Checks what does not depend on the email being a user's (its form, where links lead, the system sender, the
   * rate limits per client address and per email), answers, and mails the link when the email is a user's.
   */
  async request(r: PasswordResetRequest, log: Logger): Promise<Identified<void>> {
    const bad = emailProblem(r.email);
    if (bad) return bad;
    const base = resetLinkBase(this.d.config.dashboard.publicUrl, r.origin);
    if (base === undefined) {
      const reason = 'Password reset links need the dashboard’s public URL: the operator must set dashboard.publicUrl (TERNMAIL_DASHBOARD_URL).';
      return refused({ kind: 'system_mail_unavailable', reason });
    }
    const sender = await this.mail.sender();
    if (!sender.ok) return refused(sender.refusal);
    const limited = await this.rateLimited(r);
    if (limited) return limited;
    const user = await this.d.store.users.findByEmail(r.email);
    // Not awaited: how long the answer takes must not tell whether a mail was made.
    if (user) void this.mailLink(user, sender.value, base, r.client, log);
    else log.info({ emailHash: sha256Hex(emailKey(r.email)) }, 'password reset asked for an unknown email');
    return granted(undefined);
  }

  /** What a link's token stands for: valid (with its user), unknown, expired or used. */
  async open(token: string): Promise<PasswordResetLink> {
    const reset = token === '' ? undefined : await this.d.store.passwordResets.findByTokenHash(hashToken(token));
    const user = reset && (await this.d.store.users.get(reset.userId));
    if (!reset || !user) return { state: 'unknown' };
    const state = passwordResetState(reset, this.d.now());
    return state === 'valid' ? { state, user, expiresAt: reset.expiresAt } : { state };
  }

  /**
   * Sets the password (the rule of a password change; the must-change flag cleared) and marks the link used, in
   * one change that only one of two uses at once can make; then ends every session of the user. Application
   * passwords stay, as a password change keeps them.
   */
  async complete(c: PasswordResetCompletion, log: Logger): Promise<Identified<User>> {
    const link = await this.open(c.token);
    if (link.state !== 'valid') return refused({ kind: 'password_reset_unusable', state: link.state });
    const problem = passwordProblem(c.password);
    if (problem) return invalidField('password', problem);
    const used = await this.d.store.passwordResets.use(hashToken(c.token), await hashPassword(c.password), isoAt(this.d.now()));
    if (!used) {
      // Used (or expired) while the password was being hashed.
      const now = await this.open(c.token);
      return refused({ kind: 'password_reset_unusable', state: now.state === 'valid' ? 'used' : now.state });
    }
    const ended = await this.sessions.endAllOf(used.userId);
    log.info({ user: used.userId, sessionsEnded: ended }, 'dashboard password reset by mail');
    return granted({ ...link.user, mustChangePassword: false });
  }

  /** Hits the client address's window, then the email's (counted whether or not a user has it). */
  private async rateLimited(r: PasswordResetRequest): Promise<Identified<never> | undefined> {
    const c = this.d.config.dashboard.passwordReset;
    const windows = [
      { key: redisKeys.passwordResets('address', sha256Hex(r.client.address)), limit: c.perAddressPerHour, what: 'from your address' },
      { key: redisKeys.passwordResets('email', sha256Hex(emailKey(r.email))), limit: c.perEmailPerHour, what: 'for this email address' },
    ];
    for (const w of windows) {
      const decision = await hitWindow(this.d.redis, w.key, w.limit, HOUR_S);
      if (!decision.allowed) {
        const message = `At most ${w.limit} password reset requests an hour ${w.what}; try again later.`;
        return refused({ kind: 'rate_limited', message, retryAfterS: decision.resetS });
      }
    }
    return undefined;
  }

  /**
   * Stores a new link (replacing the user's unused ones), then mails it: stored first, so the link works by the
   * time the mail can arrive. A link whose mail cannot go is removed again.
   */
  private async mailLink(user: User, sender: SystemSender, base: string, client: ClientInfo, log: Logger): Promise<void> {
    try {
      const token = randomBytes(32).toString('base64url');
      const at = this.d.now();
      const expiresAt = isoAt(at + this.d.config.dashboard.passwordReset.ttlS * 1000);
      await this.d.store.passwordResets.create({ userId: user.id, tokenHash: hashToken(token), at: isoAt(at), expiresAt });
      const message = await this.mail.composeRequired('password_reset', user.email, {
        'reset.url': resetLink(base, token),
        'reset.expires_at': mailTime(expiresAt),
        'user.email': user.email,
        'request.address': client.address,
      });
      const sent = await this.mail.sendAs(sender, message, log);
      if (sent.ok) {
        log.info({ user: user.id, msg_id: sent.value.messageId }, 'password reset link mailed');
        return;
      }
      await this.d.store.passwordResets.remove(hashToken(token));
      log.warn({ user: user.id, refusal: sent.refusal.kind }, 'password reset link not mailed');
    } catch (err) {
      log.error({ err, user: user.id }, 'password reset link failed');
    }
  }
}
