// Words the dashboard's REST answers and the pages must say alike.

/** The one answer to a request, whatever the email (POST /api/…/lost-password and the Forgot password page). */
export const RESET_REQUESTED = 'If an account exists for that address, we have sent a link to choose a new password to it.';
