// Dashboard users: created with a one-time password (by the operator's CLI, first start, later invitations),
// their password reset by the operator, their profile and password changed by themselves.
import { isOneLine, notOneLine } from '../../domain/one-line.js';
import { isAccountRole, isAccountUser, isOperator, OPERATOR_ROLE, type AccountUser, type Operator, type User } from '../../domain/user.js';
import type { NewUser } from '../../store/users.js';
import type { Team } from '../../domain/team.js';
import { isValidEmail } from '../../email-address.js';
import { accountOfUser, type StoreDeps } from './deps.js';
import { hashPassword, oneTimePassword, passwordProblem, verifyPassword } from './passwords.js';
import { granted, invalidField, refused, type Identified } from './refusals.js';
import type { Sessions } from './sessions.js';
import type { Logger } from '../../log.js';

export interface NewUserRequest {
  email: string;
  name?: string;
  /** Checked: one of owner, admin, viewer (the CLI passes what the operator typed). */
  role: string;
  /** The account itself (the default) or one of its teams. */
  teamId?: number;
}

export interface NewOperatorRequest {
  email: string;
  name?: string;
}

export interface UserWithPassword<U extends User = User> {
  user: U;
  /** Shown once; the user must change it at the first login. */
  oneTimePassword: string;
}

/** A user and the account it belongs to (the root of its team); null for a platform operator, which has none. */
export interface Profile {
  user: User;
  accountId: number | null;
}

/** A new user as the store takes it, before its one-time password is made. */
type Unsecured<U> = U extends unknown ? Omit<U, 'passwordHash' | 'mustChangePassword'> : never;

export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
  /** The session that asks for the change: it stays valid. */
  keepSessionId?: number;
}

export interface ProfileChange {
  name?: string;
  email?: string;
  /** Required to change the email. */
  currentPassword?: string;
}

export function emailProblem(email: string): Identified<never> | undefined {
  return isValidEmail(email) ? undefined : invalidField('email', 'email must be an email address (local@domain)');
}

export function nameProblem(name: string): Identified<never> | undefined {
  if (name.length > 100) return invalidField('name', 'name must have at most 100 characters');
  if (!isOneLine(name)) return invalidField('name', notOneLine('name'));
  return undefined;
}

export class Users {
  constructor(
    private readonly d: StoreDeps,
    private readonly sessions: Sessions,
  ) {}

  async create(accountId: number, r: NewUserRequest, log: Logger): Promise<Identified<UserWithPassword<AccountUser>>> {
    const account = await this.d.store.teams.get(accountId);
    if (!account || account.parentId !== null) return refused({ kind: 'not_found', what: 'account', message: `no account ${accountId}` });
    const teamId = r.teamId ?? account.id;
    if (teamId !== account.id) {
      const team = await this.d.store.teams.get(teamId);
      if (!team || team.parentId !== account.id) return refused({ kind: 'not_found', what: 'team', message: `no team ${teamId} in account ${account.id}` });
    }
    if (!isAccountRole(r.role)) return invalidField('role', 'role must be owner, admin or viewer');
    if (r.role === 'owner' && teamId !== account.id) return invalidField('role', 'an owner belongs to the account, not to one of its teams');
    return this.withOneTimePassword({ email: r.email, name: r.name ?? '', role: r.role, teamId }, isAccountUser, log);
  }

  /** A platform operator (the operator's CLI only): no team, the admin routes; a one-time password as any user. */
  async createOperator(r: NewOperatorRequest, log: Logger): Promise<Identified<UserWithPassword<Operator>>> {
    return this.withOneTimePassword({ email: r.email, name: r.name ?? '', role: OPERATOR_ROLE }, isOperator, log);
  }

  /** The platform operators, oldest first. */
  operators(): Promise<Operator[]> {
    return this.d.store.users.listOperators();
  }

  /** Stores a user whose email and name pass their rules, with a one-time password it must change at the first login. */
  private async withOneTimePassword<U extends User>(u: Unsecured<NewUser>, kind: (user: User) => user is U, log: Logger): Promise<Identified<UserWithPassword<U>>> {
    const bad = emailProblem(u.email) ?? nameProblem(u.name);
    if (bad) return bad;
    const password = oneTimePassword();
    const user = await this.d.store.users.create({ ...u, passwordHash: await hashPassword(password), mustChangePassword: true });
    if (user === 'email_taken') return refused({ kind: 'email_taken', field: 'email' });
    // The store gives back the row it inserted: another kind of user here is a bug, not a refusal.
    if (!kind(user)) throw new Error(`user ${user.id} was stored as ${user.role}`);
    log.info({ user: user.id, team: 'teamId' in u ? u.teamId : null, role: user.role }, 'dashboard user created');
    return granted({ user, oneTimePassword: password });
  }

  get(id: number): Promise<User | undefined> {
    return this.d.store.users.get(id);
  }

  /** A new one-time password for the user of `email` (any case); every session of the user ends. */
  async resetPassword(email: string, log: Logger): Promise<Identified<UserWithPassword>> {
    const user = await this.d.store.users.findByEmail(email);
    if (!user) return refused({ kind: 'not_found', what: 'user', message: `no user ${email}` });
    const password = oneTimePassword();
    await this.d.store.users.setPassword(user.id, await hashPassword(password), true);
    const ended = await this.sessions.endAllOf(user.id);
    log.info({ user: user.id, sessionsEnded: ended }, 'dashboard password reset');
    return granted({ user: { ...user, mustChangePassword: true }, oneTimePassword: password });
  }

  /** The users of a team (of the account itself, for the account), as its members page lists them. */
  async members(team: Team): Promise<AccountUser[]> {
    return (await this.d.store.users.listByTeam(team.id)).filter(isAccountUser);
  }

  /** The user as its profile shows it: with the account it belongs to (its team's account, or its own). */
  async profile(user: User): Promise<Identified<Profile>> {
    if (isOperator(user)) return granted({ user, accountId: null });
    const accountId = await accountOfUser(this.d, user);
    if (accountId === undefined) return refused({ kind: 'not_found', what: 'account', message: 'Account not found' });
    return granted({ user, accountId });
  }

  /** The name, and the email (which needs the current password); on any refusal nothing changes. */
  async updateProfile(user: User, change: ProfileChange, log: Logger): Promise<Identified<User>> {
    const bad = (change.name === undefined ? undefined : nameProblem(change.name)) ?? (change.email === undefined ? undefined : emailProblem(change.email));
    if (bad) return bad;
    const emailChanges = change.email !== undefined && change.email !== user.email;
    if (emailChanges && change.currentPassword === undefined) return refused({ kind: 'missing_field', field: 'current_password' });
    if (emailChanges && !(await this.passwordMatches(user, change.currentPassword))) return refused({ kind: 'incorrect_password', field: 'current_password' });
    const updated = await this.d.store.users.update(user.id, { name: change.name, email: emailChanges ? change.email : undefined });
    if (updated === 'email_taken') return refused({ kind: 'email_taken', field: 'email' });
    if (!updated) return refused({ kind: 'not_found', what: 'user', message: 'User not found' });
    log.info({ user: user.id, nameChanged: change.name !== undefined && change.name !== user.name, emailChanged: emailChanges }, 'dashboard profile changed');
    return granted(updated);
  }

  /**
   * Needs the current password; the new one follows the password rule and differs from it. Clears the must-change
   * flag and ends every other session of the user (all of them without `keepSessionId`); application passwords
   * stay, as WordPress keeps them.
   */
  async changePassword<U extends User>(user: U, change: PasswordChange, log: Logger): Promise<Identified<U>> {
    const problem =
      passwordProblem(change.newPassword) ?? (change.newPassword === change.currentPassword ? 'new_password must differ from the current password' : undefined);
    if (problem) return invalidField('new_password', problem);
    if (!(await this.passwordMatches(user, change.currentPassword))) return refused({ kind: 'incorrect_password', field: 'current_password' });
    await this.d.store.users.setPassword(user.id, await hashPassword(change.newPassword), false);
    const ended = await this.sessions.endAllOf(user.id, change.keepSessionId);
    log.info({ user: user.id, sessionsEnded: ended }, 'dashboard password changed');
    return granted({ ...user, mustChangePassword: false });
  }

  private async passwordMatches(user: User, password: string | undefined): Promise<boolean> {
    const stored = await this.d.store.users.passwordHash(user.id);
    return password !== undefined && stored !== undefined && (await verifyPassword(stored, password));
  }
}
