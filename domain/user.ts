// A dashboard user: who logs in, with which role, on which account or team, and what each role may do.
export const USER_ROLES = ['owner', 'admin', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface User {
  id: number;
  /** As the user gave it (never rewritten); compared without regard to case, unique across the product. */
  email: string;
  name: string;
  role: UserRole;
  /** The account (a team without a parent) or the one child team the user belongs to. An owner's is an account. */
  teamId: number;
  /** Set by a one-time password: the user must choose a password before anything else. */
  mustChangePassword: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a use case needs of its caller: to look ('read'), to change ('write'), or to act as the owner ('owner'). */
export type Permission = 'read' | 'write' | 'owner';

const GRANTED: Readonly<Record<UserRole, readonly Permission[]>> = {
  owner: ['read', 'write', 'owner'],
  admin: ['read', 'write'],
  viewer: ['read'],
};

export const roleAllows = (role: UserRole, need: Permission): boolean => GRANTED[role].includes(need);

export const isUserRole = (value: string): value is UserRole => (USER_ROLES as readonly string[]).includes(value);

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
