// StoreTestSupport for PostgreSQL: a pool of its own on the database the code under test uses. For tests only;
// nothing in the product imports it.
import type { StoreTestSupport } from '../test-support.js';
import { nowIso } from '../../time.js';
import { openPostgres } from './sql.js';

/**
 * A call the engine cannot make yet: the message log's and the queue's moves carry figure counters along
 * (store/sqlite/test-support.ts), and those counters belong to the repositories that keep them. It fails loudly,
 * so a check reaching it fails rather than passes; the engineer writing those repositories writes these calls.
 */
const notYet = (name: string) => (): Promise<never> => Promise.reject(new Error(`not on PostgreSQL yet: StoreTestSupport.${name}`));

/** The tests' support on the (already migrated) database of `url`. */
export function openPostgresTestSupport(url: string): Promise<StoreTestSupport> {
  const sql = openPostgres(url, { max: 2 });
  const set = async (statement: string, params: Array<string | number>) => {
    await sql.run(statement, params);
  };
  return Promise.resolve({
    deleteTeam: (id) => set('UPDATE teams SET deleted_at = $1 WHERE id = $2', [nowIso(), id]),
    backdateDomain: (id, createdAt) => set('UPDATE domains SET created_at = $1 WHERE id = $2', [createdAt, id]),
    backdateMessage: notYet('backdateMessage'),
    forceRecipientOutcome: notYet('forceRecipientOutcome'),
    forceRecipientInFlight: notYet('forceRecipientInFlight'),
    backdateWebhookDelivery: (id, attemptedAt) => set('UPDATE webhook_deliveries SET attempted_at = $1 WHERE id = $2', [attemptedAt, id]),
    setInvitationExpiry: (id, expiresAt) => set('UPDATE invitations SET expires_at = $1 WHERE id = $2', [expiresAt, id]),
    setPlatformInvitationExpiry: (id, expiresAt) => set('UPDATE platform_invitations SET expires_at = $1 WHERE id = $2', [expiresAt, id]),
    setPasswordResetExpiry: (userId, expiresAt) => set('UPDATE password_resets SET expires_at = $1 WHERE user_id = $2', [expiresAt, userId]),
    addReportWithoutBody: (r) => set('INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at) VALUES ($1, $2, $3, $4)', [r.id, r.mailFrom, r.rcptTo, nowIso()]),
    close: () => sql.close(),
  });
}
