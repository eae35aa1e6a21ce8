// StoreTestSupport for PostgreSQL: a pool of its own on the database the code under test uses. For tests only;
// nothing in the product imports it.
import type { StoreTestSupport } from '../test-support.js';
import { nowIso } from '../../time.js';
import { openPostgres } from './sql.js';
import { backdateMessage, forceRecipient } from './test-moves.js';

/** The tests' support on the (already migrated) database of `url`. */
export function openPostgresTestSupport(url: string): Promise<StoreTestSupport> {
  const sql = openPostgres(url, { max: 2 });
  const set = async (statement: string, params: Array<string | number>) => {
    await sql.run(statement, params);
  };
  return Promise.resolve({
    deleteTeam: (id) => set('UPDATE teams SET deleted_at = $1 WHERE id = $2', [nowIso(), id]),
    backdateDomain: (id, createdAt) => set('UPDATE domains SET created_at = $1 WHERE id = $2', [createdAt, id]),
    backdateMessage: (id, createdAt) => sql.tx((q) => backdateMessage(q, id, createdAt)),
    forceRecipientOutcome: (recipientId, state, complained) =>
      sql.tx((q) =>
        forceRecipient(q, recipientId, state, complained, 'state = $1, complained_at = $2, next_attempt_at = NULL, updated_at = $3', [
          state,
          complained ? nowIso() : null,
          nowIso(),
        ]),
      ),
    forceRecipientInFlight: (recipientId, state, lastReply, at) =>
      sql.tx((q) => forceRecipient(q, recipientId, state, null, 'state = $1, last_reply = $2, attempts = attempts + 1, updated_at = $3', [state, lastReply, at])),
    backdateWebhookDelivery: (id, attemptedAt) => set('UPDATE webhook_deliveries SET attempted_at = $1 WHERE id = $2', [attemptedAt, id]),
    setInvitationExpiry: (id, expiresAt) => set('UPDATE invitations SET expires_at = $1 WHERE id = $2', [expiresAt, id]),
    setPlatformInvitationExpiry: (id, expiresAt) => set('UPDATE platform_invitations SET expires_at = $1 WHERE id = $2', [expiresAt, id]),
    setPasswordResetExpiry: (userId, expiresAt) => set('UPDATE password_resets SET expires_at = $1 WHERE user_id = $2', [expiresAt, userId]),
    setTwoStepExpiry: (userId, expiresAt) => set('UPDATE two_step_challenges SET expires_at = $1 WHERE user_id = $2', [expiresAt, userId]),
    setMagicLinkExpiry: (userId, expiresAt) => set('UPDATE magic_links SET expires_at = $1 WHERE user_id = $2', [expiresAt, userId]),
    addReportWithoutBody: (r) => set('INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at) VALUES ($1, $2, $3, $4)', [r.id, r.mailFrom, r.rcptTo, nowIso()]),
    close: () => sql.close(),
  });
}
