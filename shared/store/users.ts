// The users repository: dashboard users, their password hashes, their sessions and application passwords.
// Email uniqueness (without regard to case) and name uniqueness per user are kept by the store.
import type { AccountRole, ApplicationPassword, Operator, OPERATOR_ROLE, Session, User, UserRole } from '../domain/user.js';
import type { ProfiledChange, ProfiledUser, UserOrder, UserProfile } from '../domain/user-profile.js';

interface NewUserFields {
  email: string;
  name: string;
  passwordHash: string;
  mustChangePassword: boolean;
}

/** An account user (on a team) or a platform operator (on none). */
export type NewUser = NewUserFields & ({ role: AccountRole; teamId: number } | { role: typeof OPERATOR_ROLE });

/** A new user with its profile (the users collection's create): the username is the caller's. */
export type NewProfiledUser = NewUser & { profile: Partial<UserProfile> & { username: string } };

/** Which users a listing reads: all of them (an operator's view), or those of one account (its own and its teams'). */
export type UserScope = { kind: 'all' } | { kind: 'account'; accountId: number };

export interface UserListQuery {
  scope: UserScope;
  /** Only these ids (also the order for `include`). */
  include?: readonly number[];
  exclude?: readonly number[];
  /** Contained in the username, email, url, slug or name, without regard to case. */
  search?: string;
  /** Only these slugs (also the order for `include_slugs`). */
  slugs?: readonly string[];
  roles?: readonly UserRole[];
  orderby: UserOrder;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface UserRepository {
  /** 'email_taken' when another user has the same email, whatever its case. */
  create(u: NewUser): Promise<User | 'email_taken'>;
  get(id: number): Promise<User | undefined>;
  /** The user whose email equals `email` without regard to case. */
  findByEmail(email: string): Promise<User | undefined>;
  passwordHash(id: number): Promise<string | undefined>;
  /** Replaces the password hash and sets or clears the must-change flag; false when there is no such user. */
  setPassword(id: number, passwordHash: string, mustChange: boolean): Promise<boolean>;
  /** Changes the fields given. */
  update(id: number, change: { name?: string; email?: string }): Promise<User | 'email_taken' | undefined>;
  /** The users of a team (an account's own users only, not its teams'), oldest first. */
  listByTeam(teamId: number): Promise<User[]>;
  /** The platform operators, oldest first. */
  listOperators(): Promise<Operator[]>;
  /** 'email_taken' or 'username_taken' (both compared without regard to case), checked by the unique indexes. */
  createProfiled(u: NewProfiledUser): Promise<ProfiledUser | 'email_taken' | 'username_taken'>;
  profiled(id: number): Promise<ProfiledUser | undefined>;
  /** A page of users in the scope matching the query, and how many match in all. */
  listProfiled(q: UserListQuery): Promise<{ items: ProfiledUser[]; total: number }>;
  /** Changes the fields given; undefined when there is no such user. */
  updateProfiled(id: number, change: ProfiledChange): Promise<ProfiledUser | 'email_taken' | undefined>;
  /** Deletes the user: its sessions and application passwords go with it, records naming it keep no one. */
  remove(id: number): Promise<boolean>;
}

export interface NewSession {
  userId: number;
  tokenHash: string;
  userAgent: string;
  address: string;
  /** ISO time of the login: creation and first sight. */
  at: string;
}

export interface SessionRepository {
  create(s: NewSession): Promise<Session>;
  findByTokenHash(tokenHash: string): Promise<Session | undefined>;
  /** Moves last-seen forward (never back). */
  touch(id: number, at: string): Promise<void>;
  remove(id: number): Promise<boolean>;
  /** Ends every session of a user but `keepId`; how many ended. */
  removeForUser(userId: number, keepId?: number): Promise<number>;
  /** A user's sessions, oldest first. */
  listForUser(userId: number): Promise<Session[]>;
}

export interface NewApplicationPassword {
  uuid: string;
  userId: number;
  name: string;
  appId: string | null;
  /** sha256 of the password without spaces, hex. */
  passwordHash: string;
  at: string;
}

export interface ApplicationPasswordRepository {
  /** 'name_taken' when the user already has one of that name. */
  create(p: NewApplicationPassword): Promise<ApplicationPassword | 'name_taken'>;
  /** A user's application passwords, oldest first. */
  list(userId: number): Promise<ApplicationPassword[]>;
  findByHash(passwordHash: string): Promise<ApplicationPassword | undefined>;
  revoke(userId: number, uuid: string): Promise<boolean>;
  recordUse(uuid: string, at: string, address: string): Promise<void>;
}
