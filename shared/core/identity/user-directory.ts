// The dashboard's users as WordPress's users collection serves them (wp/v2/users): who sees whom, who creates,
// edits and deletes whom, and the rules of each field. Roles map onto WordPress's capabilities (see
// docs/decisions.md, "wp/v2/users"): an operator is WordPress's administrator over every user; an account's
// owner and admins manage the account's users (never one ranked above themselves); a viewer reads them and
// edits only itself; anyone may read the author of a published post or page (the list shows no one to an
// anonymous caller: see docs/decisions.md).
import { isOneLine, notOneLine } from '../../domain/one-line.js';
import { accountIdOf, type Team } from '../../domain/team.js';
import { isAccountRole, isOperator, type AccountRole, type AccountUser, type Operator, type User, type UserRole } from '../../domain/user.js';
import { PROFILE_LIMITS, slugOf, type ProfiledChange, type ProfiledUser, type UserOrder, type UserProfile } from '../../domain/user-profile.js';
import type { UserListQuery, UserScope } from '../../store/users.js';
import type { Logger } from '../../log.js';
import type { AuthoredContent } from '../ports/authored-content.js';
import type { StoreDeps } from './deps.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { granted, invalidField, refused, type Identified, type UserAction } from './refusals.js';
import type { Sessions } from './sessions.js';
import { emailProblem, nameProblem } from './users.js';

/** Who asks: a platform operator, an account's user acting on one of its teams, or no one. */
export type DirectoryActor = { kind: 'operator'; user: Operator } | { kind: 'account'; user: AccountUser; acting: Team } | undefined;

/** What the collection's list asks for (scope and permission are the actor's). */
export interface DirectoryQuery {
  include?: readonly number[];
  exclude?: readonly number[];
  search?: string;
  slugs?: readonly string[];
  roles?: readonly string[];
  orderby: UserOrder;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
  /** The edit context: only those who may list users with their private fields. */
  edit: boolean;
}

/** A new user as the collection's create takes it: WordPress's required username, email and password. */
export interface DirectoryNewUser extends Partial<Omit<UserProfile, 'username'>> {
  username: string;
  email: string;
  password: string;
  name?: string;
  /** One role: an account role (an account's users), or 'operator' (an operator's). */
  role?: string;
}

/** A change through the collection: the profile, name, email, role and password. */
export interface DirectoryChange extends Omit<ProfiledChange, 'role'> {
  role?: string;
  password?: string;
  /** The caller's own password: needed to change its own email or password (Tern's rule, as on the profile). */
  currentPassword?: string;
  /** The caller's session, kept when it changes its own password (its other sessions end). */
  keepSessionId?: number;
}

/** The orders that would tell private fields apart: only for those who may list users (list_users). */
const PRIVATE_ORDERS: readonly UserOrder[] = ['email', 'registered_date'];

const RANK: Readonly<Record<AccountRole, number>> = { viewer: 0, admin: 1, owner: 2 };

/** The capabilities WordPress would give each role, as the collection shows them (`capabilities`). */
const CAPABILITIES: Readonly<Record<UserRole, readonly string[]>> = {
  viewer: ['read', 'level_0'],
  admin: ['read', 'level_0', 'list_users', 'create_users', 'edit_users', 'delete_users', 'promote_users', 'upload_files'],
  owner: ['read', 'level_0', 'list_users', 'create_users', 'edit_users', 'delete_users', 'promote_users', 'upload_files', 'manage_options'],
  operator: [
    'read',
    'level_0',
    'list_users',
    'create_users',
    'edit_users',
    'delete_users',
    'promote_users',
    'upload_files',
    'manage_options',
    'edit_posts',
    'edit_others_posts',
    'publish_posts',
    'edit_pages',
    'edit_others_pages',
    'publish_pages',
  ],
};

/** A role's capabilities as WordPress lists them (allcaps): each capability and the role itself, true. */
export function capabilitiesOf(role: UserRole): Record<string, boolean> {
  return Object.fromEntries([...CAPABILITIES[role], role].map((c) => [c, true]));
}

const mayManageUsers = (actor: DirectoryActor): boolean => actor !== undefined && CAPABILITIES[actor.user.role].includes('edit_users');

/** WordPress's validate_username: letters, digits, spaces and `_ . - @`, 1 to 60 characters. */
function usernameProblem(username: string): Identified<never> | undefined {
  if (!/^[A-Za-z0-9 _.@-]{1,60}$/.test(username) || username.trim() !== username) {
    return invalidField('username', 'This username is invalid because it uses illegal characters. Please enter a valid username.');
  }
  return undefined;
}

/** The text fields' rules: their length (the store's CHECKs), one line where WordPress keeps one. */
function profileProblem(c: Partial<Omit<UserProfile, 'username'>>): Identified<never> | undefined {
  const oneLine = ['firstName', 'lastName', 'nickname', 'url', 'slug', 'locale'] as const;
  for (const field of [...oneLine, 'description'] as const) {
    const value = c[field];
    if (value === undefined) continue;
    const name = field.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
    if (value.length > PROFILE_LIMITS[field]) return invalidField(name, `${name} must have at most ${PROFILE_LIMITS[field]} characters`);
    if ((oneLine as readonly string[]).includes(field) && !isOneLine(value)) return invalidField(name, notOneLine(name));
  }
  if (c.url && !/^https?:\/\/[^\s/$.?#][^\s]*$/i.test(c.url)) return invalidField('url', 'url must be an http or https URL');
  if (c.slug !== undefined && !/^[a-z0-9_-]+$/.test(c.slug)) return invalidField('slug', 'slug must be lower-case letters, digits, - and _');
  if (c.locale && !/^[a-z]{2,3}(_[A-Z]{2})?$/.test(c.locale)) return invalidField('locale', 'locale must be a locale such as en_US');
  return undefined;
}

const notAllowed = (action: UserAction, actor: DirectoryActor): Identified<never> => refused({ kind: 'not_allowed', action, anonymous: actor === undefined });
const noSuchUser = (): Identified<never> => refused({ kind: 'not_found', what: 'user', message: 'Invalid user ID.' });

export class UserDirectory {
  constructor(
    private readonly d: StoreDeps,
    private readonly sessions: Sessions,
    private readonly authored: AuthoredContent,
  ) {}

  /** The users the actor sees: every user for an operator, its account's for an account user, none for no one. */
  private scopeOf(actor: DirectoryActor): UserScope | undefined {
    if (actor === undefined) return undefined;
    return actor.kind === 'operator' ? { kind: 'all' } : { kind: 'account', accountId: accountIdOf(actor.acting) };
  }

  /** Whether `target` is within the actor's sight: its account's users (its teams' too), or all for an operator. */
  private async sees(actor: DirectoryActor, target: User): Promise<boolean> {
    if (actor === undefined) return false;
    if (actor.kind === 'operator' || actor.user.id === target.id) return true;
    if (isOperator(target)) return false;
    const team = await this.d.store.teams.get(target.teamId);
    return team !== undefined && accountIdOf(team) === accountIdOf(actor.acting);
  }

  /** edit_user: oneself; an operator anyone; an owner its account's users; an admin those not ranked above it. */
  mayEdit(actor: DirectoryActor, target: User): boolean {
    if (actor === undefined) return false;
    if (actor.user.id === target.id) return true;
    if (!mayManageUsers(actor)) return false;
    if (actor.kind === 'operator') return true;
    return !isOperator(target) && RANK[target.role] <= RANK[actor.user.role];
  }

  async list(actor: DirectoryActor, q: DirectoryQuery): Promise<Identified<{ items: ProfiledUser[]; total: number }>> {
    if (q.edit && !mayManageUsers(actor)) return notAllowed('context', actor);
    // As WordPress: filtering by role, or ordering by a private field, needs the right to list users.
    if (q.roles?.length && !mayManageUsers(actor)) return notAllowed('list_roles', actor);
    if (PRIVATE_ORDERS.includes(q.orderby) && !mayManageUsers(actor)) return notAllowed('orderby', actor);
    const scope = this.scopeOf(actor);
    // WordPress shows an anonymous caller only users who published content; no one has yet (see the decisions).
    if (!scope) return granted({ items: [], total: 0 });
    const roles = q.roles?.filter((r): r is UserRole => isAccountRole(r) || r === 'operator');
    if (q.roles?.length && !roles?.length) return granted({ items: [], total: 0 });
    const query: UserListQuery = { ...q, scope, roles };
    return granted(await this.d.store.users.listProfiled(query));
  }

  /** One user the actor sees; the edit context needs the right to edit it. Unknown and out of sight are alike. */
  async get(actor: DirectoryActor, id: number, edit = false): Promise<Identified<ProfiledUser>> {
    const found = await this.d.store.users.profiled(id);
    if (!found) return noSuchUser();
    // As WordPress: anyone may read the author of published content (in the view and embed contexts).
    if (actor === undefined) return !edit && (await this.authored.hasPublished(id)) ? granted(found) : notAllowed(edit ? 'context' : 'view', actor);
    if (!(await this.sees(actor, found.user))) {
      if (!(await this.authored.hasPublished(id))) return noSuchUser();
      return edit ? notAllowed('context', actor) : granted(found);
    }
    if (edit && !this.mayEdit(actor, found.user)) return notAllowed('context', actor);
    return granted(found);
  }

  /** The role a new user gets: an operator makes operators; an account user one not above its own, on its team. */
  private newRole(actor: Exclude<DirectoryActor, undefined>, role: string | undefined): Identified<UserRole> {
    if (actor.kind === 'operator') {
      return role === undefined || role === 'operator' ? granted('operator') : invalidField('roles', 'an operator creates operators; an account creates its own users');
    }
    const wanted = role ?? 'viewer';
    if (!isAccountRole(wanted)) return invalidField('roles', 'roles must be one of owner, admin, viewer');
    if (RANK[wanted] > RANK[actor.user.role]) return notAllowed('edit_roles', actor);
    return granted(wanted);
  }

  async create(actor: DirectoryActor, r: DirectoryNewUser, log: Logger): Promise<Identified<ProfiledUser>> {
    if (actor === undefined || !mayManageUsers(actor)) return notAllowed('create', actor);
    const role = this.newRole(actor, r.role);
    if (!role.ok) return role;
    const bad =
      usernameProblem(r.username) ??
      emailProblem(r.email) ??
      nameProblem(r.name ?? '') ??
      profileProblem(r) ??
      (passwordProblem(r.password) ? invalidField('password', passwordProblem(r.password)!) : undefined);
    if (bad) return bad;
    if (role.value !== 'operator' && actor.kind === 'account' && role.value === 'owner' && actor.acting.parentId !== null) {
      return invalidField('roles', 'an owner belongs to the account, not to one of its teams');
    }
    const placed = role.value === 'operator' ? { role: 'operator' as const } : { role: role.value, teamId: actor.kind === 'account' ? actor.acting.id : 0 };
    const { username, email, password, name, ...profile } = r;
    const made = await this.d.store.users.createProfiled({
      ...placed,
      email,
      name: name ?? '',
      passwordHash: await hashPassword(password),
      // The creator chose the password and hands it over, as WordPress's users screen does: it is the user's own.
      mustChangePassword: false,
      profile: { ...profile, username, slug: profile.slug ?? slugOf(username) },
    });
    if (made === 'email_taken') return refused({ kind: 'email_taken', field: 'email' });
    if (made === 'username_taken') return refused({ kind: 'username_taken', field: 'username' });
    log.info({ user: made.user.id, by: actor.user.id, role: made.user.role }, 'dashboard user created (wp/v2/users)');
    return granted(made);
  }

  /** The role a change asks for, when it changes one: never one's own, never above the editor's, never across kinds. */
  private roleChange(actor: Exclude<DirectoryActor, undefined>, target: User, role: string | undefined): Identified<AccountRole | undefined> {
    if (role === undefined || role === target.role) return granted(undefined);
    if (actor.user.id === target.id || !mayManageUsers(actor)) return notAllowed('edit_roles', actor);
    if (isOperator(target) || !isAccountRole(role)) return invalidField('roles', 'roles must be one of owner, admin, viewer; an operator stays one');
    if (actor.kind === 'account' && RANK[role] > RANK[actor.user.role]) return notAllowed('edit_roles', actor);
    return granted(role);
  }

  async update(actor: DirectoryActor, id: number, c: DirectoryChange, log: Logger): Promise<Identified<ProfiledUser>> {
    const found = await this.get(actor, id);
    if (!found.ok) return found;
    const target = found.value.user;
    if (actor === undefined || !this.mayEdit(actor, target)) return notAllowed('edit', actor);
    const role = this.roleChange(actor, target, c.role);
    if (!role.ok) return role;
    const { password, currentPassword, keepSessionId, ...fields } = c;
    const bad =
      (fields.name === undefined ? undefined : nameProblem(fields.name)) ??
      (fields.email === undefined ? undefined : emailProblem(fields.email)) ??
      profileProblem(fields) ??
      (password !== undefined && passwordProblem(password) ? invalidField('password', passwordProblem(password)!) : undefined);
    if (bad) return bad;
    if (role.value === 'owner' && !isOperator(target) && (await this.d.store.teams.get(target.teamId))?.parentId !== null) {
      return invalidField('roles', 'an owner belongs to the account, not to one of its teams');
    }
    const emailChanges = fields.email !== undefined && fields.email !== target.email;
    const own = actor.user.id === target.id;
    if (own && (emailChanges || password !== undefined)) {
      if (currentPassword === undefined) return refused({ kind: 'missing_field', field: 'current_password' });
      const stored = await this.d.store.users.passwordHash(target.id);
      if (!stored || !(await verifyPassword(stored, currentPassword))) return refused({ kind: 'incorrect_password', field: 'current_password' });
    }
    const updated = await this.d.store.users.updateProfiled(id, { ...fields, email: emailChanges ? fields.email : undefined, role: role.value });
    if (updated === 'email_taken') return refused({ kind: 'email_taken', field: 'email' });
    if (!updated) return noSuchUser();
    if (password !== undefined) {
      await this.d.store.users.setPassword(id, await hashPassword(password), false);
      // A new password ends the user's other sessions (all of them when someone else set it), as a password change does.
      await this.sessions.endAllOf(id, own ? keepSessionId : undefined);
    }
    log.info(
      { user: id, by: actor.user.id, roleChanged: role.value !== undefined, emailChanged: emailChanges, passwordChanged: password !== undefined },
      'dashboard user changed (wp/v2/users)',
    );
    return granted(updated);
  }

  /**
   * The user, when the actor may delete it: it needs delete_users and the right to edit this user; an account's
   * owner is never deleted here (the account would have none). Asked first, as WordPress checks before `force`.
   */
  async deletable(actor: DirectoryActor, id: number): Promise<Identified<ProfiledUser>> {
    const found = await this.get(actor, id);
    if (!found.ok) return found;
    const target = found.value.user;
    if (actor === undefined || !mayManageUsers(actor) || !this.mayEdit(actor, target) || target.role === 'owner') return notAllowed('delete', actor);
    return found;
  }

  /** Deletes a user and gives what it authored to `reassignTo` (null: deleted with it). */
  async remove(actor: DirectoryActor, id: number, reassignTo: number | null, log: Logger): Promise<Identified<ProfiledUser>> {
    const found = await this.deletable(actor, id);
    if (!found.ok || actor === undefined) return found;
    if (reassignTo !== null) {
      const heir = await this.d.store.users.get(reassignTo);
      if (!heir || heir.id === id || !(await this.sees(actor, heir))) return refused({ kind: 'invalid_reassign' });
    }
    await this.authored.reassign(id, reassignTo);
    if (!(await this.d.store.users.remove(id))) return noSuchUser();
    log.info({ user: id, by: actor.user.id, reassignedTo: reassignTo }, 'dashboard user deleted (wp/v2/users)');
    return granted(found.value);
  }
}
