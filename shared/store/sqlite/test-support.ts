// StoreTestSupport for SQLite: a connection of its own to a data directory's database, beside the store the
// code under test uses. For tests only; nothing in the product imports it.
import { openDatabase } from './open.js';
import type { StoreTestSupport } from '../test-support.js';
import { nowIso } from '../../time.js';

export async function openTestSupport(dataDir: string): Promise<StoreTestSupport> {
  const sql = await openDatabase(dataDir);
  return {
    async deleteTeam(id) {
      await sql.run('UPDATE teams SET deleted_at = ? WHERE id = ?', [nowIso(), id]);
    },
    async backdateDomain(id, createdAt) {
      await sql.run('UPDATE domains SET created_at = ? WHERE id = ?', [createdAt, id]);
    },
    async backdateMessage(id, createdAt) {
      await sql.run('UPDATE messages SET created_at = ? WHERE id = ?', [createdAt, id]);
    },
    async forceRecipientOutcome(recipientId, state, complained) {
      await sql.run('UPDATE recipients SET state = ?, complained_at = ?, next_attempt_at = NULL, updated_at = ? WHERE id = ?', [
        state,
        complained ? nowIso() : null,
        nowIso(),
        recipientId,
      ]);
    },
    async forceRecipientInFlight(recipientId, state, lastReply, at) {
      await sql.run('UPDATE recipients SET state = ?, last_reply = ?, attempts = attempts + 1, updated_at = ? WHERE id = ?', [state, lastReply, at, recipientId]);
    },
    async backdateWebhookDelivery(id, attemptedAt) {
      await sql.run('UPDATE webhook_deliveries SET attempted_at = ? WHERE id = ?', [attemptedAt, id]);
    },
    async setInvitationExpiry(id, expiresAt) {
      await sql.run('UPDATE invitations SET expires_at = ? WHERE id = ?', [expiresAt, id]);
    },
    async setPlatformInvitationExpiry(id, expiresAt) {
      await sql.run('UPDATE platform_invitations SET expires_at = ? WHERE id = ?', [expiresAt, id]);
    },
    async setPasswordResetExpiry(userId, expiresAt) {
      await sql.run('UPDATE password_resets SET expires_at = ? WHERE user_id = ?', [expiresAt, userId]);
    },
    close: () => sql.close(),
  };
}
