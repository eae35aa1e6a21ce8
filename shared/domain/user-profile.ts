// A dashboard user as WordPress's users collection shows it: the user, and the profile WordPress keeps beside
// it (login name, slug, first and last name, nickname, website, biography, locale). The login name is chosen
// once and never changes (WordPress's user_login); a user made before profiles existed has its email as one.
import type { AccountRole, User } from './user.js';

export interface UserProfile {
  /** Unique without regard to case (WordPress compares logins so); never changes. */
  username: string;
  /** WordPress's user_nicename: the username made URL-safe, unless set otherwise. */
  slug: string;
  firstName: string;
  lastName: string;
  nickname: string;
  url: string;
  description: string;
  /** A locale such as en_US, or '' for the site's. */
  locale: string;
}

export interface ProfiledUser {
  user: User;
  profile: UserProfile;
}

/** The profile fields a change may set (not the username, which never changes). */
export type ProfileFields = Omit<UserProfile, 'username'>;

/** A change of a user through the users collection: its name, email, profile fields and account role. */
export interface ProfiledChange extends Partial<ProfileFields> {
  name?: string;
  email?: string;
  role?: AccountRole;
}

/** The orders of the users collection (WordPress's `orderby`): `include`/`include_slugs` keep the order given. */
export const USER_ORDERS = ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'] as const;
export type UserOrder = (typeof USER_ORDERS)[number];

/** Limits of the profile's fields, the same in both engines' CHECKs. */
export const PROFILE_LIMITS = { username: 60, slug: 50, firstName: 100, lastName: 100, nickname: 100, url: 200, description: 2000, locale: 20 } as const;

/** sanitize_title for a login name: lower case, runs of anything but letters, digits, '_' and '-' become '-'. */
export function slugOf(username: string): string {
  const slug = username
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, PROFILE_LIMITS.slug);
  return slug || 'user';
}
