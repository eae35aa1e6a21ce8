// The dashboard's identity use cases, built once per process: users, login, sessions, nonces, application
// passwords (and authorizing an application), login security and access. createCore spreads them into the Core.
import type { Runtime } from '../../runtime/runtime.js';
import type { IdentityDeps, StoreDeps } from './deps.js';
import { Users } from './users.js';
import { Logins } from './login.js';
import { Sessions } from './sessions.js';
import { Nonces } from './nonces.js';
import { ApplicationPasswords } from './application-passwords.js';
import { LoginSecurity } from './login-security.js';
import { Access } from './access.js';
import { ApplicationAuthorization } from './application-authorization.js';
import { TwoStepSignIn } from './two-step.js';
import { SocialSignIn } from './social-sign-in.js';
import { SingleSignOn } from './single-sign-on.js';
import type { SystemMail } from '../system-mail.js';
import { UserDirectory } from './user-directory.js';
import { storedAuthorship } from '../ports/authored-content.js';

export interface Identity {
  readonly users: Users;
  readonly logins: Logins;
  readonly sessions: Sessions;
  readonly nonces: Nonces;
  readonly applicationPasswords: ApplicationPasswords;
  readonly loginSecurity: LoginSecurity;
  readonly access: Access;
  readonly applicationAuthorization: ApplicationAuthorization;
  /** Sign-in with a provider (Google, GitHub), into the password login's session. */
  readonly socialSignIn: SocialSignIn;
  /** Single sign-on with paired dashboards: sites, sign-in links, tokens accepted and validated. */
  readonly singleSignOn: SingleSignOn;
  /** The users as WordPress's users collection (wp/v2/users) lists, creates, edits and deletes them. */
  readonly userDirectory: UserDirectory;
}

/** The key of the dashboard's nonces, derived from the product's secret under a label of its own. */
export const NONCE_KEY_PURPOSE = 'dashboard-nonce';

/** `mail`: Tern's own mail, for two-step codes and lockout notices (without it, two-step sign-in is refused). */
export function createIdentity(rt: Pick<Runtime, 'store' | 'redis' | 'config' | 'secrets'>, now: () => number = Date.now, mail?: SystemMail): Identity {
  const d: IdentityDeps = { store: rt.store, redis: rt.redis, config: rt.config, now };
  const loginSecurity = new LoginSecurity(d);
  const sessions = new Sessions(d, loginSecurity);
  const nonces = new Nonces(rt.secrets.derive(NONCE_KEY_PURPOSE), now);
  const applicationPasswords = new ApplicationPasswords(d, loginSecurity);
  const logins = new Logins(d, loginSecurity, sessions, nonces, new TwoStepSignIn(d, mail), mail);
  return {
    users: new Users(d, sessions),
    logins,
    socialSignIn: new SocialSignIn({ ...d, secrets: rt.secrets }, logins),
    sessions,
    nonces,
    applicationPasswords,
    loginSecurity,
    access: new Access(d),
    applicationAuthorization: new ApplicationAuthorization(applicationPasswords),
    singleSignOn: new SingleSignOn({ ...d, secrets: rt.secrets }, sessions, nonces, loginSecurity),
    userDirectory: new UserDirectory(d, sessions, storedAuthorship(rt.store)),
  };
}

/** Users for the operator's CLI and the first start, which run without Redis (no login happens there). */
export function operatorUsers(d: Omit<StoreDeps, 'now'>, now: () => number = Date.now): Users {
  const deps: StoreDeps = { ...d, now };
  return new Users(deps, new Sessions(deps, new LoginSecurity(deps)));
}

export type { Identified, IdentityRefusal, IdentityThing } from './refusals.js';
export type { LoginAttempt, LoginResult, LoginRefusal, TwoStepAttempt } from './login.js';
export type { Resumption, StartedSession, ClientInfo } from './sessions.js';
export type { CreatedApplicationPassword, ApplicationPasswordAuthentication } from './application-passwords.js';
export type { DirectoryActor, DirectoryChange, DirectoryNewUser, DirectoryQuery } from './user-directory.js';
export type { NewUserRequest, UserWithPassword, ProfileChange, Profile, PasswordChange } from './users.js';
export type { PasswordChangeStep, Credential } from './access.js';
export type { QuickStats } from './login-security.js';
export type { SocialFinish, SocialRefusal, SocialStart } from './social-sign-in.js';
export type { SsoRefusal, SsoSignIn, SsoValidation, ChildRegistration, LoginLink } from './single-sign-on.js';
export { PASSWORD_LENGTH } from './passwords.js';
export type { PasswordResetLink, PasswordResetRequest, PasswordResetCompletion } from './password-resets.js';
export type { AuthorizationRequest, CheckedAuthorization, Approval } from './application-authorization.js';
export { MAGIC_LINK_PATH, type MagicLinkRequest } from './magic-links.js';
