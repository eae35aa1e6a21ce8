// Magic-link sign-in (FluentAuth's magic login): a user asks for a sign-in link by email; when their account
// allows it (login settings' magic_link, not for two-step roles, never for operators), Tern mails one through its
// own mail, carrying a random token of which only the sha256 is kept, that signs in once until it expires
// (dashboard.magicLink.ttlS). The request is throttled per client address and per email before anything else is
// done, and its answer never says whether the email is a user's, nor whether a link went: the checks that can
// refuse it depend on the request alone, and the link is made and mailed after the answer. Following the link is
// Logins.signInWithLink (login.ts).
import { randomBytes } from 'node:crypto';
import { emailKey, type User } from '../../domain/user.js';
import { hitWindow } from '../../rate-limit.js';
import { redisKeys } from '../../redis-keys.js';
import { sha256Hex } from '../../sha256.js';
import type { Logger } from '../../log.js';
import type { SystemMail, SystemSender } from '../system-mail.js';
import { accountOfUser, isoAt, type IdentityDeps } from './deps.js';
import { granted, refused, type Identified } from './refusals.js';
import { hashToken, type ClientInfo } from './sessions.js';
import { emailProblem } from './users.js';
import { resetLinkBase } from './password-resets.js';
import type { LoginSecurity } from './login-security.js';
import type { Logins } from './login.js';

export interface MagicLinkRequest {
  /** As typed; matched without regard to case. */
  email: string;
  client: ClientInfo;
  /** scheme://host the request was addressed to (the link's base when dashboard.publicUrl is unset and it is loopback). */
  origin: string;
}

/** The page a link leads to: it shows a button that signs in (a GET signs nobody in). */
export const MAGIC_LINK_PATH = '/magic-link';
export const magicLink = (base: string, token: string): string => `${base}${MAGIC_LINK_PATH}?token=${encodeURIComponent(token)}`;

const HOUR_S = 3600;

export class MagicLinks {
  constructor(
    private readonly d: IdentityDeps,
    private readonly mail: SystemMail,
    private readonly logins: Logins,
    private readonly security: LoginSecurity,
  ) {}

  /** Whether the sign-in page offers the link at all (accounts still decide for their users). */
  get offered(): boolean {
    return this.d.config.dashboard.magicLink.offered;
  }

  /**
   * Takes the request's places in the hourly windows (the client address's, then the email's, counted whether or
   * not a user has it) before anything else, checks what depends on the request alone (the email's form, where
   * links lead, the system sender), answers, and mails a link when the email is a user's who may have one.
   */
  async request(r: MagicLinkRequest, log: Logger): Promise<Identified<void>> {
    const bad = emailProblem(r.email);
    if (bad) return bad;
    if (!this.offered) return refused({ kind: 'forbidden', need: 'account_admin' });
    const limited = await this.rateLimited(r);
    if (limited) return limited;
    const base = resetLinkBase(this.d.config.dashboard.publicUrl, r.origin);
    if (base === undefined)
      return refused({
        kind: 'system_mail_unavailable',
        reason: 'Sign-in links need the dashboard’s public URL: the operator must set dashboard.publicUrl (TERNMAIL_DASHBOARD_URL).',
      });
    const sender = await this.mail.sender();
    if (!sender.ok) return refused(sender.refusal);
    // Not awaited: how long the answer takes must not tell whether a link was made.
    void this.mailIfAllowed(r, sender.value, base, log);
    return granted(undefined);
  }

  private async rateLimited(r: MagicLinkRequest): Promise<Identified<never> | undefined> {
    const c = this.d.config.dashboard.magicLink;
    const windows = [
      { key: redisKeys.magicLinks('address', sha256Hex(r.client.address)), limit: c.perAddressPerHour, what: 'from your address' },
      { key: redisKeys.magicLinks('email', sha256Hex(emailKey(r.email))), limit: c.perEmailPerHour, what: 'for this email address' },
    ];
    for (const w of windows) {
      const decision = await hitWindow(this.d.redis, w.key, w.limit, HOUR_S);
      if (!decision.allowed)
        return refused({ kind: 'rate_limited', message: `At most ${w.limit} sign-in links an hour ${w.what}; try again later.`, retryAfterS: decision.resetS });
    }
    return undefined;
  }

  private async mailIfAllowed(r: MagicLinkRequest, sender: SystemSender, base: string, log: Logger): Promise<void> {
    try {
      const user = await this.d.store.users.findByEmail(r.email);
      const settings = user && (await this.security.effective(await accountOfUser(this.d, user)));
      if (user && settings && this.logins.linkAllowed(settings, user)) await this.mailLink(user, sender, base, r.client, log);
      else log.info({ emailHash: sha256Hex(emailKey(r.email)), known: user !== undefined }, 'sign-in link asked for an email that may not have one');
    } catch (err) {
      log.error({ err }, 'sign-in link failed');
    }
  }

  /** Stores the link (replacing the user's unused ones) before mailing it, and removes it when its mail cannot go. */
  private async mailLink(user: User, sender: SystemSender, base: string, client: ClientInfo, log: Logger): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const at = this.d.now();
    const ttlS = this.d.config.dashboard.magicLink.ttlS;
    await this.d.store.magicLinks.create({ userId: user.id, tokenHash: hashToken(token), at: isoAt(at), expiresAt: isoAt(at + ttlS * 1000) });
    const message = await this.mail.composeRequired('magic_link', user.email, {
      'link.url': magicLink(base, token),
      'link.minutes': String(Math.round(ttlS / 60)),
      'user.email': user.email,
      'request.address': client.address,
    });
    const sent = await this.mail.sendAs(sender, message, log);
    if (sent.ok) {
      log.info({ user: user.id, msg_id: sent.value.messageId }, 'sign-in link mailed');
      return;
    }
    await this.d.store.magicLinks.remove(hashToken(token));
    log.warn({ user: user.id, refusal: sent.refusal.kind }, 'sign-in link not mailed');
  }
}
