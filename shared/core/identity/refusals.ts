// Why an identity use case (login, users, sessions, application passwords, login security) refused: one
// closed set that the dashboard's HTTP side and the CLI each translate into their own shape.
import type { Permission } from '../../domain/user.js';
import type { SystemMailRefusal } from '../system-mail.js';
import type { FieldProblem } from '../management-refusals.js';

export type UserAction = 'context' | 'view' | 'list_roles' | 'orderby' | 'create' | 'edit' | 'edit_roles' | 'delete';

export type IdentityThing = 'user' | 'account' | 'team' | 'application_password' | 'auth_log_entry' | 'invitation';

export type IdentityRefusal =
  /** Unknown email, wrong password, unknown application password: one answer for all. */
  | { kind: 'invalid_credentials' }
  /** Too many failed logins for the email or from the address; try again after this many seconds. */
  | { kind: 'throttled'; retryAfterS: number }
  /** The caller's role (or, for login security, its not being on the account) does not allow it. */
  | { kind: 'forbidden'; need: Permission | 'account_admin' | 'account_owner' }
  | { kind: 'not_found'; what: IdentityThing; message: string }
  /** `fields`: every field refused, this one first, when a change breaks more than one (a form says them all at once). */
  | { kind: 'invalid_field'; field: string; message: string; fields?: readonly FieldProblem[] }
  /** A field the change needs was left out (the current password, to change the email). */
  | { kind: 'missing_field'; field: string }
  | { kind: 'email_taken'; field: 'email' }
  /** Another user has that username (WordPress: existing_user_login). */
  | { kind: 'username_taken'; field: 'username' }
  /** The user to give a deleted user's content to is not one the caller may name (WordPress: rest_user_invalid_reassign). */
  | { kind: 'invalid_reassign' }
  /**
   * The users collection's "may not", with WordPress's code for the action: listing with the edit context, viewing,
   * creating, editing, changing roles or deleting a user. `anonymous`: no one signed in (401, else 403).
   */
  | { kind: 'not_allowed'; action: UserAction; anonymous: boolean }
  /** An invitation to a user the inviter's own account already has (a user elsewhere is not told apart from a new address). */
  | { kind: 'already_member'; field: 'email' }
  /** The user already has an application password of that name (WordPress: application_password_duplicate_name). */
  | { kind: 'name_taken'; field: 'name' }
  /** The current password given to confirm a change is wrong. */
  | { kind: 'incorrect_password'; field: 'current_password' }
  /** An invitation's token that is unknown, or whose invitation was accepted, revoked or replaced. */
  | { kind: 'invitation_invalid' }
  /** An invitation's token whose invitation is still open but past its expiry. */
  | { kind: 'invitation_expired' }
  /** A password-reset link's token that is unknown (or replaced by a newer one), already used, or past its expiry. */
  | { kind: 'password_reset_unusable'; state: 'unknown' | 'used' | 'expired' }
  /** A sign-in link that is unknown, used, expired, replaced, or no longer allowed (the account turned it off). */
  | { kind: 'magic_link_unusable' }
  /** The invitation's mail could not be sent (see core/system-mail.ts); nothing was stored. */
  | SystemMailRefusal
  /** The user's password is a one-time one that must be changed before anything else (see access.ts). */
  | { kind: 'password_change_required' }
  /** The password was right and the account asks this user for a code, mailed now: sign in with it and `challenge`. */
  | { kind: 'two_step_required'; challenge: string; expiresAt: string; sentTo: string }
  /** A wrong two-step code; after `triesLeft` more the challenge is spent. */
  | { kind: 'two_step_code_wrong'; triesLeft: number }
  /** A two-step challenge that is unknown, used, expired or out of tries: sign in again for a new code. */
  | { kind: 'two_step_spent' }
  /** The account has turned application passwords off. */
  | { kind: 'application_passwords_disabled' };

export type Identified<T> = { ok: true; value: T } | { ok: false; refusal: IdentityRefusal };

export const granted = <T>(value: T): Identified<T> => ({ ok: true, value });
export const refused = <T = never>(refusal: IdentityRefusal): Identified<T> => ({ ok: false, refusal });
export const invalidField = <T = never>(field: string, message: string): Identified<T> => refused({ kind: 'invalid_field', field, message });
/** Every field a change breaks at once: the first is the refusal REST answers with, `fields` has them all. */
export const invalidFields = <T = never>(problems: readonly [FieldProblem, ...FieldProblem[]]): Identified<T> =>
  refused({ kind: 'invalid_field', ...problems[0], fields: problems });
