// Platform invitations in PostgreSQL: the token's sha256 (unique), one open invitation per email (a partial unique
// index on lower(email); creating marks the open one replaced first, in the same transaction, under a lock on the
// email), and acceptance as one transaction that locks the open invitation, creates the account, writes the
// grant the caller makes of it through the ledger and inserts the owner, or changes nothing.
import type { PgSql, Queryable } from './sql.js';
import { countOf } from './decode.js';
import type { PlatformInvitation } from '../../domain/platform-invitation.js';
import type { Team } from '../../domain/team.js';
import type { User } from '../../domain/user.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { AcceptedAccount, GrantOf, NewOwner, NewPlatformInvitation, PlatformAcceptance, PlatformInvitationRepository } from '../platform-invitations.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { PgAuditLogStore } from './audit-log.js';
import { PgTeamStore } from './teams.js';
import { PgUserStore } from './users.js';
import { applyEntry } from './credits.js';
import { decodeInvitation } from '../platform-invitation-row.js';

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'id, email, account_name, credits, status, invited_by, message_id, account_id, user_id, created_at, expires_at, closed_at';

/**
 * Two invitations to one email made at once would both find no open one to replace, and the second insert would
 * then fail on platform_invitations_open. A transaction-scoped lock on the email (folded as the index folds it)
 * makes the second wait, and its UPDATE then sees the first, replaces it and hands it to its audit entry.
 */
const LOCK_EMAIL = "SELECT pg_advisory_xact_lock(hashtext('platform_invitation:' || lower($1)))";

const INSERT = `INSERT INTO platform_invitations (email, account_name, credits, token_hash, invited_by, message_id, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`;

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
  const made = await PgTeamStore.insertAccount(q, { ...a, name: i.accountName }, at);
  const grant = grantOf(i, made.id);
  const entry = grant ? await applyEntry(q, grant, at) : undefined;
  if (typeof entry === 'string') throw new Error(`granting the credits of platform invitation ${i.id}: ${entry}`);
  const user = await PgUserStore.insert(
    q,
    { email: i.email, name: owner.name, role: 'owner', teamId: made.id, passwordHash: owner.passwordHash, mustChangePassword: false },
    at,
  );
  if (user === 'email_taken') throw new EmailTaken();
  return { account: entry ? { ...made, creditBalance: entry.balanceAfter } : made, user };
}

export class PgPlatformInvitationStore implements PlatformInvitationRepository {
  constructor(private readonly sql: PgSql) {}

  async create(i: NewPlatformInvitation, audit: (made: PlatformInvitation, replaced: PlatformInvitation | undefined) => NewAuditEntry): Promise<PlatformInvitation> {
    return this.sql.tx(async (q) => {
      await q.run(LOCK_EMAIL, [i.email]);
      const replaced = await q.get(
        `UPDATE platform_invitations SET status = 'replaced', closed_at = $1 WHERE lower(email) = lower($2) AND status = 'open' RETURNING ${COLUMNS}`,
        [i.at, i.email],
      );
      const row = await q.get(INSERT, [i.email, i.accountName, i.credits, i.tokenHash, i.invitedBy, i.messageId, i.at, i.expiresAt]);
      const made = decodeInvitation(row!);
      await PgAuditLogStore.insert(q, audit(made, replaced && decodeInvitation(replaced)));
      return made;
    });
  }

  async findByTokenHash(tokenHash: string): Promise<PlatformInvitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE token_hash = $1`, [tokenHash]);
    return row && decodeInvitation(row);
  }

  async get(id: number): Promise<PlatformInvitation | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE id = $1`, [id]);
    return row && decodeInvitation(row);
  }

  async list(page: PageRequest): Promise<PageOf<PlatformInvitation>> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM platform_invitations ORDER BY id DESC LIMIT $1 OFFSET $2`, limitOffset(page));
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM platform_invitations');
    return { rows: rows.map(decodeInvitation), total: countOf(total!) };
  }

  /** The conditional UPDATE decides: of two revocations at once, the second finds the row no longer open and records nothing. */
  async revoke(id: number, at: string, audit: (revoked: PlatformInvitation) => NewAuditEntry): Promise<PlatformInvitation | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`UPDATE platform_invitations SET status = 'revoked', closed_at = $1 WHERE id = $2 AND status = 'open' RETURNING ${COLUMNS}`, [at, id]);
      if (!row) return undefined;
      const revoked = decodeInvitation(row);
      await PgAuditLogStore.insert(q, audit(revoked));
      return revoked;
    });
  }

  /**
   * The open invitation is read `FOR UPDATE`: of two acceptances at once the second waits for the first's row lock,
   * then evaluates `status = 'open'` again on the committed row and finds it closed, so one account only is opened.
   * A taken email throws inside the transaction, so the account and its grant already inserted are rolled back.
   */
  async accept(id: number, account: AcceptedAccount, owner: NewOwner, at: string, grant: GrantOf): Promise<PlatformAcceptance> {
    try {
      return await this.sql.tx(async (q): Promise<PlatformAcceptance> => {
        const open = await q.get(`SELECT ${COLUMNS} FROM platform_invitations WHERE id = $1 AND status = 'open' AND expires_at > $2 FOR UPDATE`, [id, at]);
        if (!open) return 'closed';
        const made = await openAccount(q, decodeInvitation(open), account, owner, at, grant);
        const row = await q.get(`UPDATE platform_invitations SET status = 'accepted', closed_at = $1, account_id = $2, user_id = $3 WHERE id = $4 RETURNING ${COLUMNS}`, [
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
