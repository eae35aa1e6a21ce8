// Accounts and their child teams in SQLite. A root account (parent_id NULL) holds the pooled credits.
import { Type } from '@sinclair/typebox';
import type { Queryable, Sql } from './sql.js';
import { countOf, Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { nowIso } from '../../shared/time.js';
import { transitionTeam, type Actor, type TeamStatus } from '../../domain/team-state.js';
import type { Team } from '../../domain/team.js';
import type { AccountRepository, NewAccount, StatusChange } from '../accounts.js';

const TeamRow = Type.Object({
  id: Int,
  parent_id: Nullable(Int),
  name: Text,
  status: OneOf(['active', 'suspended'] as const),
  suspended_by: Nullable(OneOf(['account', 'platform'] as const)),
  plan_type: Text,
  credit_balance: Int,
  limit_per_second: Int,
  backend_region: Text,
  created_at: Text,
  updated_at: Text,
});

const decodeTeam = rowDecoder('team', TeamRow, (r): Team => ({
  id: r.id,
  parentId: r.parent_id,
  name: r.name,
  status: r.status,
  suspendedBy: r.suspended_by,
  planType: r.plan_type,
  creditBalance: r.credit_balance,
  limitPerSecond: r.limit_per_second,
  backendRegion: r.backend_region,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));

const decodeBalance = rowDecoder('credit balance', Type.Object({ credit_balance: Int }), (r) => r.credit_balance);

const LIVE = 'deleted_at IS NULL';
const COLUMNS = 'parent_id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at';

export class AccountStore implements AccountRepository {
  constructor(private readonly sql: Sql) {}

  async count(): Promise<number> {
    return countOf((await this.sql.get(`SELECT COUNT(*) AS n FROM accounts WHERE ${LIVE}`))!);
  }

  async createAccount(a: NewAccount): Promise<Team> {
    const now = nowIso();
    const [row] = await this.sql.returning(`INSERT INTO accounts (${COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?) RETURNING *`, [
      a.name,
      a.planType,
      a.credits,
      a.limitPerSecond,
      a.backendRegion,
      now,
      now,
    ]);
    return decodeTeam(row!);
  }

  /**
   * One conditional insert: the count and the insert are one statement, so no interleaving of writers can
   * pass the limit (see docs/decisions.md, "Limits kept by the store").
   */
  async createTeam(parent: Team, name: string, limit: number): Promise<Team | 'limit_reached'> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      `INSERT INTO accounts (${COLUMNS}) SELECT ?, ?, ?, 0, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM accounts WHERE parent_id = ? AND ${LIVE}) < ? RETURNING *`,
      [parent.id, name, parent.planType, parent.limitPerSecond, parent.backendRegion, now, now, parent.id, limit],
    );
    return row ? decodeTeam(row) : 'limit_reached';
  }

  async get(id: number): Promise<Team | undefined> {
    const row = await this.sql.get(`SELECT * FROM accounts WHERE id = ? AND ${LIVE}`, [id]);
    return row && decodeTeam(row);
  }

  async children(parentId: number): Promise<Team[]> {
    const rows = await this.sql.all(`SELECT * FROM accounts WHERE parent_id = ? AND ${LIVE} ORDER BY created_at, id`, [parentId]);
    return rows.map(decodeTeam);
  }

  async pooledBalance(team: Team): Promise<number> {
    if (team.parentId === null) return team.creditBalance;
    return (await this.get(team.parentId))?.creditBalance ?? 0;
  }

  async rename(id: number, name: string): Promise<Team | undefined> {
    const [row] = await this.sql.returning(`UPDATE accounts SET name = ?, updated_at = ? WHERE id = ? AND ${LIVE} RETURNING *`, [name, nowIso(), id]);
    return row && decodeTeam(row);
  }

  async changeStatus(id: number, wanted: TeamStatus, actor: Actor): Promise<StatusChange> {
    return this.sql.tx(async (q): Promise<StatusChange> => {
      const row = await q.get(`SELECT * FROM accounts WHERE id = ? AND ${LIVE}`, [id]);
      if (!row) return { ok: false, refusal: 'not_found' };
      const team = decodeTeam(row);
      const next = transitionTeam(team, wanted, actor);
      if (!next.ok) return next;
      const [changed] = await q.all('UPDATE accounts SET status = ?, suspended_by = ?, updated_at = ? WHERE id = ? RETURNING *', [
        next.state.status,
        next.state.suspendedBy,
        nowIso(),
        id,
      ]);
      return { ok: true, team: decodeTeam(changed!) };
    });
  }

  async update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE accounts SET limit_per_second = COALESCE(?, limit_per_second), plan_type = COALESCE(?, plan_type), updated_at = ?
       WHERE id = ? AND ${LIVE} RETURNING *`,
      [fields.limitPerSecond ?? null, fields.planType ?? null, nowIso(), id],
    );
    return row && decodeTeam(row);
  }

  async addCredits(rootId: number, amount: number): Promise<number | undefined> {
    const [row] = await this.sql.returning(
      'UPDATE accounts SET credit_balance = credit_balance + ?, updated_at = ? WHERE id = ? AND parent_id IS NULL RETURNING credit_balance',
      [amount, nowIso(), rootId],
    );
    return row && decodeBalance(row);
  }

  /** Debits the pooled balance atomically; false when it would go below zero. */
  static async debit(q: Queryable, rootId: number, amount: number): Promise<boolean> {
    const res = await q.run('UPDATE accounts SET credit_balance = credit_balance - ? WHERE id = ? AND credit_balance >= ?', [amount, rootId, amount]);
    return res.changes === 1;
  }
}
