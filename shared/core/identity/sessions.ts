// Dashboard sessions: a new random token at every login (no fixation), kept as its sha256; resumed only within
// the idle and absolute lifetimes of the user's account (each resume slides last-seen); ended at logout.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../sha256.js';
import type { Session, User } from '../../domain/user.js';
import { accountOfUser, clip, isoAt, type StoreDeps } from './deps.js';
import type { LoginSecurity } from './login-security.js';

/** How a secret token (a session's, an invitation's) is stored. */
export const hashToken = sha256Hex;

export interface StartedSession {
  /** The cookie's value: shown to the browser, never stored. */
  token: string;
  session: Session;
}

export type Resumption = { ok: true; session: Session; user: User } | { ok: false; reason: 'unknown' | 'expired' };

export interface ClientInfo {
  userAgent: string;
  address: string;
}

export class Sessions {
  constructor(
    private readonly d: StoreDeps,
    private readonly security: LoginSecurity,
  ) {}

  async start(user: User, client: ClientInfo): Promise<StartedSession> {
    const token = randomBytes(32).toString('base64url');
    const session = await this.d.store.sessions.create({
      userId: user.id,
      tokenHash: hashToken(token),
      userAgent: clip(client.userAgent, 512),
      address: clip(client.address, 64),
      at: isoAt(this.d.now()),
    });
    return { token, session };
  }

  /** The session of a cookie's token and its user; an expired one is removed as it is found. */
  async resume(token: string): Promise<Resumption> {
    const session = await this.d.store.sessions.findByTokenHash(hashToken(token));
    const user = session && (await this.d.store.users.get(session.userId));
    if (!session || !user) return { ok: false, reason: 'unknown' };
    const settings = await this.security.effective(await accountOfUser(this.d, user));
    const now = this.d.now();
    const idle = now - Date.parse(session.lastSeenAt) > settings.sessionIdleMinutes * 60_000;
    const old = now - Date.parse(session.createdAt) > settings.sessionAbsoluteHours * 3_600_000;
    if (idle || old) {
      await this.d.store.sessions.remove(session.id);
      return { ok: false, reason: 'expired' };
    }
    const seen = isoAt(now);
    await this.d.store.sessions.touch(session.id, seen);
    return { ok: true, session: { ...session, lastSeenAt: seen > session.lastSeenAt ? seen : session.lastSeenAt }, user };
  }

  /** Logout: the token's session ends (nothing happens for a token that has none). */
  async end(token: string): Promise<void> {
    const session = await this.d.store.sessions.findByTokenHash(hashToken(token));
    if (session) await this.d.store.sessions.remove(session.id);
  }

  /** Ends every session of a user but `keepId` (the one that changed the password); how many ended. */
  endAllOf(userId: number, keepId?: number): Promise<number> {
    return this.d.store.sessions.removeForUser(userId, keepId);
  }
}
