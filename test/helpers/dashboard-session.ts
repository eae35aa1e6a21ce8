// Dashboard callers for tests over real HTTP: users made through the identity use cases with a known password,
// logged in through POST /api/tern-auth/v1/login (the session cookie and its nonce), or an application password.
import { createIdentity } from '../../shared/core/identity/index.js';
import { createLogger } from '../../shared/log.js';
import type { UserRole } from '../../shared/domain/user.js';
import type { Harness, HttpReply } from './harness.js';

export const PASSWORD = 'correct horse battery staple';
const log = createLogger('test', 'silent');
let counter = 0;

/** A dashboard user of `accountId` (on the account, or on its team `teamId`) with PASSWORD set; its email. */
export async function userOn(h: Harness, accountId: number, role: UserRole, teamId?: number): Promise<string> {
  const id = createIdentity(h.rt);
  const email = `user${++counter}.${process.pid}@example.com`;
  const made = await id.users.create(accountId, { email, role, teamId }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await id.users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return email;
}

export interface SignedIn {
  cookie: string;
  nonce: string;
  reply: HttpReply;
}

export async function logIn(h: Harness, email: string, password = PASSWORD): Promise<SignedIn> {
  const reply = await h.request('POST', '/api/tern-auth/v1/login', { body: { email, password } });
  const setCookie = reply.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0] ?? '', nonce: String((reply.body as { nonce?: string }).nonce ?? ''), reply };
}

/** Request options with the session's cookie and `nonce` in X-WP-Nonce (its own by default; null sends none). */
export const withSession = (s: SignedIn, nonce: string | null = s.nonce, extra: Record<string, string> = {}) => ({
  headers: { cookie: s.cookie, ...(nonce === null ? {} : { 'X-WP-Nonce': nonce }), ...extra },
});

/** A signed-in user of `role` on a new account (or on `teamId` of it), and the account's id and admin key. */
export async function signedInOn(h: Harness, role: UserRole = 'owner'): Promise<{ session: SignedIn; accountId: number; adminKey: string; email: string }> {
  const account = await h.account();
  const email = await userOn(h, account.id, role);
  return { session: await logIn(h, email), accountId: account.id, adminKey: account.key, email };
}

/** A platform operator (a user of no account) with PASSWORD set; its email. */
export async function operatorOn(h: Harness): Promise<string> {
  const id = createIdentity(h.rt);
  const email = `operator${++counter}.${process.pid}@example.com`;
  const made = await id.users.createOperator({ email }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await id.users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return email;
}
