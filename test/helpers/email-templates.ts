// Editing Tern's own emails over REST as an operator (tern-auth/v1/wp-default-emails), for the tests of the
// mails they word: an edit (or turning one off) before the mail is sent, the default put back after.
import type { Harness } from './harness.js';
import { withSession, type SignedIn } from './dashboard-session.js';

const SAVE = '/api/tern-auth/v1/wp-default-emails/save-email-settings';

/** Saves `emailId`'s subject and body (and `status: 'disabled'` to turn it off); throws unless it is saved. */
export async function editEmail(h: Harness, operator: SignedIn, emailId: string, emailData: { subject: string; body: string; status?: string }): Promise<void> {
  const reply = await h.request('POST', SAVE, { ...withSession(operator), body: { email_id: emailId, email_data: emailData } });
  if (reply.status !== 200) throw new Error(`editing ${emailId}: ${reply.status} ${reply.text}`);
}

/** Puts `emailId`'s default wording back (and sends it again). */
export async function resetEmail(h: Harness, operator: SignedIn, emailId: string): Promise<void> {
  const reply = await h.request('POST', SAVE, { ...withSession(operator), body: { email_id: emailId, reset: true } });
  if (reply.status !== 200) throw new Error(`resetting ${emailId}: ${reply.status} ${reply.text}`);
}
