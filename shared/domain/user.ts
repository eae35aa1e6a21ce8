// A dashboard user: who logs in, with which role, on which account or team, and what each role may do. An
// account user belongs to one account or team; a platform operator belongs to none (it sees across them all).
export const ACCOUNT_ROLES = ['owner', 'admin', 'viewer'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];
export const OPERATOR_ROLE = 'operator';
export const USER_ROLES = [...ACCOUNT_ROLES, OPERATOR_ROLE] as const;
export type UserRole = (typeof USER_ROLES)[number];

interface UserFields {
  id: number;
  /** As the user gave it (never rewritten); compared without regard to case, unique across the product. */
  email: string;
  name: string;
  /** Set by a one-time password: the user must choose a password before anything else. */
  mustChangePassword: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A user of one account: on the account itself or on one of its child teams. */
export interface AccountUser extends UserFields {
  role: AccountRole;
  /** The account (a team without a parent) or the one child team the user belongs to. An owner's is an account. */
  teamId: number;
}

/** A platform operator: no team, no account; reaches the admin routes only. */
export interface Operator extends UserFields {
  role: typeof OPERATOR_ROLE;
}

export type User = AccountUser | Operator;

export const isOperator = (user: User): user is Operator => user.role === OPERATOR_ROLE;
export const isAccountUser = (user: User): user is AccountUser => user.role !== OPERATOR_ROLE;

/**
 * What a use case needs of its caller: to act on itself ('self': its profile, password, application passwords),
 * to look at the team acted on ('read'), to change it ('write'), to act as its owner ('owner'), or to act as the
 * platform ('operator').
 */
export type Permission = 'self' | 'read' | 'write' | 'owner' | 'operator';

// An operator is no member of any account, so it holds none of the account permissions; no account role holds 'operator'.
const GRANTED: Readonly<Record<UserRole, readonly Permission[]>> = {
  owner: ['self', 'read', 'write', 'owner'],
  admin: ['self', 'read', 'write'],
  viewer: ['self', 'read'],
  operator: ['self', 'operator'],
};

export const roleAllows = (role: UserRole, need: Permission): boolean => GRANTED[role].includes(need);

/**
 * WordPress's edit_posts: who may edit content (announcements, docs, templates) and use what editing needs (the
 * oEmbed proxy, url-details). Operators edit platform-wide and account owners and admins their account's; viewers read.
 */
export const mayEditContent = (user: User): boolean => isOperator(user) || roleAllows(user.role, 'write');

export const isAccountRole = (value: string): value is AccountRole => (ACCOUNT_ROLES as readonly string[]).includes(value);

/** A dashboard session: only the hash of its token is kept; the token itself lives in the browser's cookie. */
export interface Session {
  id: number;
  userId: number;
  /** sha256 of the token, hex. */
  tokenHash: string;
  userAgent: string;
  address: string;
  createdAt: string;
  lastSeenAt: string;
}

/** An application password (WordPress's): a name, an optional app id, when and from where it was last used. */
export interface ApplicationPassword {
  uuid: string;
  userId: number;
  name: string;
  /** The UUID the application gave when it asked, or null. */
  appId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  lastIp: string | null;
}

/** The form of an email used to compare two: ASCII letters lower-cased (the only letters an accepted address has). */
export const emailKey = (email: string): string => email.replace(/[A-Z]+/g, (s) => s.toLowerCase());
