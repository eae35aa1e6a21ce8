// Words the dashboard's REST answers and the pages must say alike.

/** The one answer to a request, whatever the email (POST /api/…/lost-password and the Forgot password page). */
export const RESET_REQUESTED = 'If an account exists for that address, we have sent a link to choose a new password to it.';

/** The one answer to a sign-in link request, whether or not a link went (no account enumeration). */
export const MAGIC_LINK_REQUESTED = 'If that address may sign in by a link, we have sent one to it. It works once, for a short time.';
