// Platform invitations in SQLite: their own table (see docs/decisions.md, "Platform invitations (issue 12)"),
// the token's sha256 (unique), one open invitation per email (a partial unique index; creating marks the open
// one replaced first, in the same transaction), and acceptance as one transaction that closes the invitation,
// creates the account, writes the grant the caller makes of it through the ledger and inserts the owner, or
// changes nothing.
import type { Queryable, Sql } from './sql.js';
import { countOf } from './decode.js';
import type { PlatformInvitation } from '../../domain/platform-invitation.js';
import type { Team } from '../../domain/team.js';
import type { User } from '../../domain/user.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { AcceptedAccount, GrantOf, NewOwner, NewPlatformInvitation, PlatformAcceptance, PlatformInvitationRepository } from '../platform-invitations.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { AuditLogStore } from './audit-log.js';
import { TeamStore } from './teams.js';
import { UserStore } from './users.js';
import { applyEntry } from './credits.js';
import { decodeInvitation } from '../platform-invitation-row.js';

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'id, email, account_name, credits, status, invited_by, message_id, account_id, user_id, created_at, expires_at, closed_at';

/** Raised inside the acceptance's transaction so that the account already inserted is rolled back. */
class EmailTaken extends Error {}

/** The account, its credits and its owner, inside the acceptance's transaction. */
async function openAccount(
  q: Queryable,
  i: PlatformInvitation,
  a: AcceptedAccount,
  owner: NewOwner,
  at: string,
  grantOf: GrantOf,
): Promise<{ account: Team; user: User }> {
  const made = await TeamStore.insertAccount(q, { ...a, name: i.accountName }, at);
  const grant = grantOf(i, made.id);
  const entry = grant ? await applyEntry(q, grant, at) : undefined;
  if (typeof entry === 'string') throw new Error(`granting the credits of platform invitation ${i.id}: ${entry}`);
  const user = await UserStore.insert(
    q,
    { email: i.email, name: owner.name, role: 'owner', teamId: made.id, passwordHash: owner.passwordHash, mustChangePassword: false },
    at,
  );
  if (user === 'email_taken') throw new EmailTaken();
  return { account: entry ? { ...made, creditBalance: entry.balanceAfter } : made, user };
}

export class PlatformInvitationStore implements PlatformInvitationRepository {
  constructor(private readonly sql: Sql) {}

  async create(i: NewPlatformInvitation, audit: (made: PlatformInvitation, replaced: PlatformInvitation | undefined) => NewAuditEntry): Promise<PlatformInvitation> {
    return this.sql.tx(async (q) => {
      const [replaced] = await q.all(
        `UPDATE platform_invitations SET status = 'replaced', closed_at = ? WHERE email = ? COLLATE NOCASE AND status = 'open' RETURNING ${COLUMNS}`,
        [i.at, i.email],
      );
      const row = await q.get(
        `INSERT INTO platform_invitations (email, account_name, credits, token_hash, invited_by, message_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        [i.email, i.accountName, i.credits, i.tokenHash, i.invitedBy, i.messageId, i.at, i.expiresAt],
      );
      const made = decodeInvitation(row!);
      await AuditLogStore.insert(q, audit(made, replaced && decodeInvitation(replaced)));
      return made;
    });
  }

  async findByTokenHash(tokenHash: string): Promise<PlatformInvitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE token_hash = ?`, [tokenHash]);
    return row && decodeInvitation(row);
  }

  async get(id: number): Promise<PlatformInvitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE id = ?`, [id]);
    return row && decodeInvitation(row);
  }

  async list(page: PageRequest): Promise<PageOf<PlatformInvitation>> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM platform_invitations ORDER BY id DESC LIMIT ? OFFSET ?`, limitOffset(page));
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM platform_invitations');
    return { rows: rows.map(decodeInvitation), total: countOf(total!) };
  }

  async revoke(id: number, at: string, audit: (revoked: PlatformInvitation) => NewAuditEntry): Promise<PlatformInvitation | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`UPDATE platform_invitations SET status = 'revoked', closed_at = ? WHERE id = ? AND status = 'open' RETURNING ${COLUMNS}`, [at, id]);
      if (!row) return undefined;
      const revoked = decodeInvitation(row);
      await AuditLogStore.insert(q, audit(revoked));
      return revoked;
    });
  }

  async accept(id: number, account: AcceptedAccount, owner: NewOwner, at: string, grant: GrantOf): Promise<PlatformAcceptance> {
    try {
      // BEGIN IMMEDIATE holds the write lock from the first statement: what the check sees stays true until COMMIT.
      return await this.sql.tx(async (q): Promise<PlatformAcceptance> => {
        const open = await q.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE id = ? AND status = 'open' AND expires_at > ?`, [id, at]);
        if (!open) return 'closed';
        const made = await openAccount(q, decodeInvitation(open), account, owner, at, grant);
        const row = await q.get(`UPDATE platform_invitations SET status = 'accepted', closed_at = ?, account_id = ?, user_id = ? WHERE id = ? RETURNING ${COLUMNS}`, [
          at,
          made.account.id,
          made.user.id,
          id,
        ]);
        return { ...made, invitation: decodeInvitation(row!) };
      });
    } catch (err) {
      if (err instanceof EmailTaken) return 'email_taken';
      throw err;
    }
  }
}
