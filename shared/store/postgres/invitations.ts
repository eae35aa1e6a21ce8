// Invitations in PostgreSQL: the token's sha256 (unique), one open invitation per account and email (a partial
// unique index on lower(email); creating marks the open one replaced first, in the same transaction, under a lock
// on that account and email), and acceptance as one transaction that locks the open invitation, inserts the user
// and closes the invitation, or changes nothing.
import { ParamList, type PgSql } from './sql.js';
import { countOf } from './decode.js';
import type { Invitation } from '../../domain/invitation.js';
import type { Acceptance, InvitationRepository, NewInvitation } from '../invitations.js';
import type { NewUser } from '../users.js';
import { PgUserStore } from './users.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { decodeInvitation } from '../invitation-row.js';

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'id, account_id, team_id, email, role, status, invited_by, message_id, user_id, created_at, expires_at, closed_at';

/** The invitations of an account, or of one of its teams, their values added to `params`. */
function scope(params: ParamList, accountId: number, teamId: number | undefined): string {
  const account = `account_id = ${params.add(accountId)}`;
  return teamId === undefined ? account : `${account} AND team_id = ${params.add(teamId)}`;
}

/**
 * Two invitations of one account to one email made at once would both find no open one to replace, and the
 * second insert would then fail on invitations_open. A transaction-scoped lock on the account and the email
 * (folded as the index folds it) makes the second wait, and its UPDATE then sees the first and replaces it.
 */
const LOCK_EMAIL = "SELECT pg_advisory_xact_lock(hashtext('invitation:' || $1::text || ':' || lower($2)))";

const INSERT = `INSERT INTO invitations (account_id, team_id, email, role, token_hash, invited_by, message_id, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`;

export class PgInvitationStore implements InvitationRepository {
  constructor(private readonly sql: PgSql) {}

  async create(i: NewInvitation): Promise<Invitation> {
    const row = await this.sql.tx(async (q) => {
      await q.run(LOCK_EMAIL, [i.accountId, i.email]);
      await q.run("UPDATE invitations SET status = 'replaced', closed_at = $1 WHERE account_id = $2 AND lower(email) = lower($3) AND status = 'open'", [
        i.at,
        i.accountId,
        i.email,
      ]);
      return q.get(INSERT, [i.accountId, i.teamId, i.email, i.role, i.tokenHash, i.invitedBy, i.messageId, i.at, i.expiresAt]);
    });
    return decodeInvitation(row!);
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM invitations WHERE token_hash = $1`, [tokenHash]);
    return row && decodeInvitation(row);
  }

  async get(id: number, accountId: number, teamId?: number): Promise<Invitation | undefined> {
    const params = new ParamList();
    const where = `id = ${params.add(id)} AND ${scope(params, accountId, teamId)}`;
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM invitations WHERE ${where}`, params.values);
    return row && decodeInvitation(row);
  }

  async list(accountId: number, page: PageRequest, teamId?: number): Promise<PageOf<Invitation>> {
    const params = new ParamList();
    const where = scope(params, accountId, teamId);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM invitations WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM invitations WHERE ${where} ORDER BY id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    return { rows: rows.map(decodeInvitation), total: countOf(total!) };
  }

  async revoke(id: number, accountId: number, at: string): Promise<Invitation | undefined> {
    const row = await this.sql.get(
      `UPDATE invitations SET status = 'revoked', closed_at = $1 WHERE id = $2 AND account_id = $3 AND status = 'open' RETURNING ${COLUMNS}`,
      [at, id, accountId],
    );
    return row && decodeInvitation(row);
  }

  /**
   * SQLite's BEGIN IMMEDIATE keeps what the check saw true until COMMIT. Here the check is `FOR UPDATE`: of two
   * acceptances at once the second waits for the first's row lock, then evaluates `status = 'open'` again on the
   * row the first committed and finds it closed, so one only creates a user. A taken email leaves the row as it was.
   */
  async accept(id: number, u: NewUser, at: string): Promise<Acceptance> {
    return this.sql.tx(async (q): Promise<Acceptance> => {
      if (!(await q.get("SELECT id FROM invitations WHERE id = $1 AND status = 'open' AND expires_at > $2 FOR UPDATE", [id, at]))) return 'closed';
      const user = await PgUserStore.insert(q, u, at);
      if (user === 'email_taken') return user;
      const row = await q.get(`UPDATE invitations SET status = 'accepted', closed_at = $1, user_id = $2 WHERE id = $3 RETURNING ${COLUMNS}`, [at, user.id, id]);
      return { user, invitation: decodeInvitation(row!) };
    });
  }
}
