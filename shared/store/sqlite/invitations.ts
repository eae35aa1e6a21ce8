// Invitations in SQLite: the token's sha256 (unique), one open invitation per account and email (a partial
// unique index; creating marks the open one replaced first, in the same transaction), and acceptance as one
// transaction that closes the invitation and inserts the user, or changes nothing.
import { Type } from '@sinclair/typebox';
import type { Sql } from './sql.js';
import { Int, rowDecoder } from './decode.js';
import type { Invitation } from '../../domain/invitation.js';
import type { Acceptance, InvitationRepository, NewInvitation } from '../invitations.js';
import type { NewUser } from '../users.js';
import { UserStore } from './users.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { decodeInvitation } from '../invitation-row.js';

const decodeCount = rowDecoder('invitation count', Type.Object({ n: Int }), (r) => r.n);

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'id, account_id, team_id, email, role, status, invited_by, message_id, user_id, created_at, expires_at, closed_at';

/** The invitations of an account, or of one of its teams. */
const scope = (accountId: number, teamId: number | undefined): [string, number[]] =>
  teamId === undefined ? ['account_id = ?', [accountId]] : ['account_id = ? AND team_id = ?', [accountId, teamId]];

export class InvitationStore implements InvitationRepository {
  constructor(private readonly sql: Sql) {}

  async create(i: NewInvitation): Promise<Invitation> {
    const row = await this.sql.tx(async (q) => {
      await q.run("UPDATE invitations SET status = 'replaced', closed_at = ? WHERE account_id = ? AND email = ? COLLATE NOCASE AND status = 'open'", [
        i.at,
        i.accountId,
        i.email,
      ]);
      return q.get(
        `INSERT INTO invitations (account_id, team_id, email, role, token_hash, invited_by, message_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        [i.accountId, i.teamId, i.email, i.role, i.tokenHash, i.invitedBy, i.messageId, i.at, i.expiresAt],
      );
    });
    return decodeInvitation(row!);
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM invitations WHERE token_hash = ?`, [tokenHash]);
    return row && decodeInvitation(row);
  }

  async get(id: number, accountId: number, teamId?: number): Promise<Invitation | undefined> {
    const [where, params] = scope(accountId, teamId);
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM invitations WHERE id = ? AND ${where}`, [id, ...params]);
    return row && decodeInvitation(row);
  }

  async list(accountId: number, page: PageRequest, teamId?: number): Promise<PageOf<Invitation>> {
    const [where, params] = scope(accountId, teamId);
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM invitations WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`, [...params, ...limitOffset(page)]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM invitations WHERE ${where}`, params);
    return { rows: rows.map(decodeInvitation), total: decodeCount(total!) };
  }

  async revoke(id: number, accountId: number, at: string): Promise<Invitation | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE invitations SET status = 'revoked', closed_at = ? WHERE id = ? AND account_id = ? AND status = 'open' RETURNING ${COLUMNS}`,
      [at, id, accountId],
    );
    return row && decodeInvitation(row);
  }

  async accept(id: number, u: NewUser, at: string): Promise<Acceptance> {
    // BEGIN IMMEDIATE holds the write lock from the first statement: what the check sees stays true until COMMIT.
    return this.sql.tx(async (q): Promise<Acceptance> => {
      if (!(await q.get("SELECT id FROM invitations WHERE id = ? AND status = 'open' AND expires_at > ?", [id, at]))) return 'closed';
      const user = await UserStore.insert(q, u, at);
      if (user === 'email_taken') return user;
      const row = await q.get(`UPDATE invitations SET status = 'accepted', closed_at = ?, user_id = ? WHERE id = ? RETURNING ${COLUMNS}`, [at, user.id, id]);
      return { user, invitation: decodeInvitation(row!) };
    });
  }
}
