// StoreTestSupport for SQLite: a connection of its own to a data directory's database, beside the store the
// code under test uses. For tests only; nothing in the product imports it.
import { openDatabase } from './open.js';
import type { StoreTestSupport } from '../test-support.js';
import { nowIso } from '../../time.js';
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import { MESSAGE_STATUSES, RECIPIENT_STATES, type RecipientState } from '../../domain/queue-state.js';
import { depthBumps, figureBumps } from '../../domain/figures.js';
import { SqliteUnitOfWork } from './unit-of-work.js';
import { bumpFigures, bumpKeyed, type KeyedFigureBump } from './figure-counters.js';

const decodeMessage = rowDecoder('message', Type.Object({ rowid: Int, team_id: Int, created_at: Text, domain_id: Type.Union([Text, Type.Null()]) }), (r) => r);
const decodeCount = rowDecoder('message status count', Type.Object({ status: OneOf(MESSAGE_STATUSES), n: Int }), (r) => r);
const decodeRecipient = rowDecoder('recipient', Type.Object({ message_id: Text, team_id: Int, state: OneOf(RECIPIENT_STATES), complained: Int }), (r) => r);

/** A message moved in time takes its recipients' figure counts along (message_statuses holds them, by status). */
async function backdate(q: Queryable, id: string, createdAt: string): Promise<void> {
  const row = await q.get('SELECT rowid, team_id, created_at, domain_id FROM messages WHERE id = ?', [id]);
  if (!row) return;
  const m = decodeMessage(row);
  const counts = (await q.all('SELECT status, n FROM message_statuses WHERE message_rowid = ?', [m.rowid])).map(decodeCount);
  const at = (when: string, sign: number): KeyedFigureBump[] =>
    counts.map((c) => ({ rowid: m.rowid, teamId: m.team_id, createdAt: when, domainId: m.domain_id, status: c.status, by: sign * c.n }));
  await bumpKeyed(q, at(m.created_at, -1));
  await q.run('UPDATE messages SET created_at = ? WHERE id = ?', [createdAt, id]);
  await bumpKeyed(q, at(createdAt, 1));
  await q.run('UPDATE message_statuses SET created_at = ? WHERE message_rowid = ?', [createdAt, m.rowid]);
}

/** Forces a recipient's state (and complaint mark), moving its figure counts and queue depth as the queue's writes do. */
async function force(q: Queryable, recipientId: number, state: RecipientState, complained: boolean | null, set: string, params: SqlValue[]): Promise<void> {
  const row = await q.get('SELECT message_id, team_id, state, complained_at IS NOT NULL AS complained FROM recipients WHERE id = ?', [recipientId]);
  if (!row) return;
  const was = decodeRecipient(row);
  await q.run(`UPDATE recipients SET ${set} WHERE id = ?`, [...params, recipientId]);
  const from = { state: was.state, complained: was.complained !== 0 };
  await bumpFigures(q, figureBumps([{ messageId: was.message_id, from, to: { state, complained: complained ?? from.complained } }]));
  await new SqliteUnitOfWork(q).counters.bumpDepths(depthBumps([{ teamId: was.team_id, from: was.state, to: state }]));
}

export async function openTestSupport(dataDir: string): Promise<StoreTestSupport> {
  const sql = await openDatabase(dataDir);
  return {
    async deleteTeam(id) {
      await sql.run('UPDATE teams SET deleted_at = ? WHERE id = ?', [nowIso(), id]);
    },
    async backdateDomain(id, createdAt) {
      await sql.run('UPDATE domains SET created_at = ? WHERE id = ?', [createdAt, id]);
    },
    backdateMessage: (id, createdAt) => sql.tx((q) => backdate(q, id, createdAt)),
    forceRecipientOutcome: (recipientId, state, complained) =>
      sql.tx((q) =>
        force(q, recipientId, state, complained, 'state = ?, complained_at = ?, next_attempt_at = NULL, updated_at = ?', [state, complained ? nowIso() : null, nowIso()]),
      ),
    forceRecipientInFlight: (recipientId, state, lastReply, at) =>
      sql.tx((q) => force(q, recipientId, state, null, 'state = ?, last_reply = ?, attempts = attempts + 1, updated_at = ?', [state, lastReply, at])),
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
    async setTwoStepExpiry(userId, expiresAt) {
      await sql.run('UPDATE two_step_challenges SET expires_at = ? WHERE user_id = ?', [expiresAt, userId]);
    },
    async setMagicLinkExpiry(userId, expiresAt) {
      await sql.run('UPDATE magic_links SET expires_at = ? WHERE user_id = ?', [expiresAt, userId]);
    },
    async addReportWithoutBody(r) {
      await sql.run('INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at) VALUES (?, ?, ?, ?)', [r.id, r.mailFrom, r.rcptTo, nowIso()]);
    },
    close: () => sql.close(),
  };
}
