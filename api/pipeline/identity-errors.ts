// What the dashboard answers for each refusal of the identity use cases (login, sessions, users, application
// passwords, login security), in WordPress's shape: the only place an identity refusal becomes a dashboard
// error. WordPress's own codes and messages where it has them (application passwords, user emails).
import type { Identified, IdentityRefusal } from '../../shared/core/identity/index.js';
import { dashboardError, MESSAGES, forbidden, notAllowed, tooManyRequests, type DashboardError, type DashboardErrorCode } from './dashboard-errors.js';
import type { UserAction } from '../../shared/core/identity/refusals.js';
import { invalidParam } from './refusal-errors.js';

const MEMBER_EXISTS = 'This account already has a user with that email address.';
const MAGIC_LINK_INVALID =
  'This sign-in link cannot be used: it is unknown, was already used or replaced by a newer one, has expired, or is no longer allowed. Ask for a new link.';

/** WordPress's codes and words for what the users collection refuses (class-wp-rest-users-controller.php). */
const USER_ACTIONS: Readonly<Record<UserAction, { code: DashboardErrorCode; message: string }>> = {
  context: { code: 'rest_forbidden_context', message: 'Sorry, you are not allowed to edit this user.' },
  view: { code: 'rest_user_cannot_view', message: 'Sorry, you are not allowed to list users.' },
  list_roles: { code: 'rest_user_cannot_view', message: 'Sorry, you are not allowed to filter users by role.' },
  orderby: { code: 'rest_forbidden_orderby', message: 'Sorry, you are not allowed to order users by this parameter.' },
  create: { code: 'rest_cannot_create_user', message: 'Sorry, you are not allowed to create new users.' },
  edit: { code: 'rest_cannot_edit', message: 'Sorry, you are not allowed to edit this user.' },
  edit_roles: { code: 'rest_cannot_edit_roles', message: 'Sorry, you are not allowed to edit roles of this user.' },
  delete: { code: 'rest_user_cannot_delete', message: 'Sorry, you are not allowed to delete this user.' },
};

const USERNAME_TAKEN = 'Sorry, that username already exists!';

type UsersCollectionRefusal = Extract<IdentityRefusal, { kind: 'username_taken' | 'invalid_reassign' | 'not_allowed' }>;

const isUsersCollectionRefusal = (refusal: IdentityRefusal): refusal is UsersCollectionRefusal =>
  refusal.kind === 'username_taken' || refusal.kind === 'invalid_reassign' || refusal.kind === 'not_allowed';

/** The refusals only the users collection (wp/v2/users) gives. */
function usersCollectionError(refusal: UsersCollectionRefusal): DashboardError {
  switch (refusal.kind) {
    case 'username_taken':
      return dashboardError('existing_user_login', USERNAME_TAKEN, { params: { username: USERNAME_TAKEN } });
    case 'invalid_reassign':
      return dashboardError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.');
    case 'not_allowed':
      return notAllowed(USER_ACTIONS[refusal.action].code, USER_ACTIONS[refusal.action].message, refusal.anonymous);
  }
}

export const dashboardErrorForIdentity = (refusal: IdentityRefusal): DashboardError =>
  isUsersCollectionRefusal(refusal) ? usersCollectionError(refusal) : sharedIdentityError(refusal);

function sharedIdentityError(refusal: Exclude<IdentityRefusal, UsersCollectionRefusal>): DashboardError {
  switch (refusal.kind) {
    case 'invalid_credentials':
      return dashboardError('rest_invalid_credentials', 'The email address or the password is incorrect.');
    case 'throttled':
      return tooManyRequests('Too many failed login attempts; try again later.', refusal.retryAfterS);
    case 'forbidden':
      return forbidden(false);
    case 'not_found':
      return refusal.what === 'application_password'
        ? dashboardError('rest_application_password_not_found', MESSAGES.rest_application_password_not_found)
        : dashboardError(`rest_${refusal.what}_invalid_id`, refusal.message);
    case 'invalid_field':
      return invalidParam(refusal.field, 'rest_invalid_param', refusal.message);
    case 'missing_field':
      // As WordPress words a required arg left out (rest_missing_callback_param).
      return dashboardError('rest_missing_callback_param', `Missing parameter(s): ${refusal.field}`, { params: [refusal.field] });
    case 'email_taken':
      return dashboardError('existing_user_email', MESSAGES.existing_user_email, { params: { email: MESSAGES.existing_user_email } });
    case 'already_member':
      // WordPress's code for an address in use, worded for what the inviter may know: a user of their own account.
      return dashboardError('existing_user_email', MEMBER_EXISTS, { params: { email: MEMBER_EXISTS } });
    case 'name_taken':
      return dashboardError('application_password_duplicate_name', MESSAGES.application_password_duplicate_name);
    case 'incorrect_password':
      return dashboardError('rest_incorrect_password', 'The current password is incorrect.', { params: { current_password: 'The current password is incorrect.' } });
    case 'invitation_invalid':
      return dashboardError('rest_invitation_invalid', 'This invitation link is not valid: it is unknown, or was already accepted, revoked or replaced by a newer one.');
    case 'invitation_expired':
      return dashboardError('rest_invitation_expired', 'This invitation link has expired; ask for a new invitation.');
    case 'password_reset_unusable':
      // WordPress's codes for a password reset key (check_password_reset_key): a used key is as invalid as an unknown one.
      return refusal.state === 'expired'
        ? dashboardError('expired_key', 'Your password reset link has expired. Please request a new link.')
        : dashboardError('invalid_key', 'Your password reset link appears to be invalid (unknown, replaced by a newer one, or already used). Please request a new link.');
    case 'magic_link_unusable':
      return dashboardError('tern_magic_link_invalid', MAGIC_LINK_INVALID);
    case 'rate_limited':
      return tooManyRequests(refusal.message, refusal.retryAfterS);
    case 'system_mail_unavailable':
      return dashboardError('rest_system_mail_unavailable', refusal.reason);
    case 'two_step_required':
      // An error, not a success: a client that knows no second step must not take this answer for a signed-in one.
      return dashboardError(
        'tern_two_step_required',
        `Your password is right, and your account asks for a second step: a sign-in code was mailed to ${refusal.sentTo}. Send it with the challenge to POST /api/tern-auth/v1/login/code.`,
        { challenge: refusal.challenge, expires_at: refusal.expiresAt, sent_to: refusal.sentTo },
      );
    case 'two_step_code_wrong':
      return dashboardError('tern_two_step_code_invalid', 'The sign-in code is not right.', { tries_left: refusal.triesLeft });
    case 'two_step_spent':
      return dashboardError(
        'tern_two_step_expired',
        'This sign-in code can no longer be used (it expired, was used, or had too many wrong tries): sign in again for a new code.',
      );
    case 'application_passwords_disabled':
      return dashboardError('application_passwords_disabled', 'Application passwords are turned off for this account.');
    case 'password_change_required':
      return dashboardError(
        'tern_password_change_required',
        'Your password is a one-time password: change your password first (POST /api/tern/v2/profile/update-password with current_password and new_password).',
      );
  }
}

/** The use case's value, or its refusal thrown as the dashboard error the route answers with. */
export function identified<T>(result: Identified<T>): T {
  if (!result.ok) throw dashboardErrorForIdentity(result.refusal);
  return result.value;
}
