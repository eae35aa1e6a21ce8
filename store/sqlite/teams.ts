// Teams in SQLite: accounts (parent_id NULL, holding the pooled credits) and their child teams.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Queryable, Sql } from './sql.js';
import { inList, pointReads } from './point-reads.js';
import { countOf, Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { nowIso } from '../../shared/time.js';
import { transitionTeam, type Actor, type TeamStatus } from '../../domain/team-state.js';
import { DEFAULT_SUSPENSION_REASON, type Suspension, type SuspensionCause, type SuspensionDetail, type Team } from '../../domain/team.js';
import type { NewAccount, StatusChange, TeamRepository } from '../teams.js';

const Count = Type.Integer({ minimum: 0 });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });

/** The stored detail of a suspension by policy (domain/team.ts SuspensionDetail), checked when read. */
const SuspensionDetailSchema = Type.Object({
  rate: Type.Union([Type.Literal('bounce'), Type.Literal('complaint')]),
  windowDays: Count,
  volume: Count,
  bounced: Count,
  complained: Count,
  bounceRate: Fraction,
  complaintRate: Fraction,
  thresholds: Type.Object({ minVolume: Count, minBounces: Count, minComplaints: Count, maxBounceRate: Fraction, maxComplaintRate: Fraction }),
});

const TeamRow = Type.Object({
  id: Int,
  parent_id: Nullable(Int),
  name: Text,
  status: OneOf(['active', 'suspended'] as const),
  suspended_by: Nullable(OneOf(['account', 'platform'] as const)),
  suspension_reason: Nullable(Text),
  suspension_detail: Nullable(Text),
  suspended_at: Nullable(Text),
  plan_type: Text,
  credit_balance: Int,
  limit_per_second: Int,
  backend_region: Text,
  created_at: Text,
  updated_at: Text,
});

/** A detail that does not decode (written by a later version, say) is left out; the reason still says why. */
function decodeDetail(text: string | null): SuspensionDetail | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(SuspensionDetailSchema, value) ? value : null;
  } catch {
    return null;
  }
}

function suspensionOf(r: Static<typeof TeamRow>): Suspension | null {
  if (r.status !== 'suspended' || r.suspended_by === null) return null;
  return {
    by: r.suspended_by,
    reason: r.suspension_reason ?? DEFAULT_SUSPENSION_REASON[r.suspended_by],
    at: r.suspended_at ?? r.updated_at,
    detail: decodeDetail(r.suspension_detail),
  };
}

const decodeTeam = rowDecoder('team', TeamRow, (r): Team => ({
  id: r.id,
  parentId: r.parent_id,
  name: r.name,
  status: r.status,
  suspendedBy: r.suspended_by,
  suspension: suspensionOf(r),
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

export class TeamStore implements TeamRepository {
  /** The live teams of some ids, read together (see point-reads.ts). */
  private readonly byId = pointReads(async (ids: readonly number[]) => {
    const list = inList(ids);
    const rows = await this.sql.all(`SELECT * FROM teams WHERE id IN ${list.sql} AND ${LIVE}`, list.params);
    return new Map(rows.map(decodeTeam).map((team) => [team.id, team]));
  });

  constructor(private readonly sql: Sql) {}

  async count(): Promise<number> {
    return countOf((await this.sql.get(`SELECT COUNT(*) AS n FROM teams WHERE ${LIVE}`))!);
  }

  async createAccount(a: NewAccount): Promise<Team> {
    const now = nowIso();
    const [row] = await this.sql.returning(`INSERT INTO teams (${COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?) RETURNING *`, [
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
      `INSERT INTO teams (${COLUMNS}) SELECT ?, ?, ?, 0, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM teams WHERE parent_id = ? AND ${LIVE}) < ? RETURNING *`,
      [parent.id, name, parent.planType, parent.limitPerSecond, parent.backendRegion, now, now, parent.id, limit],
    );
    return row ? decodeTeam(row) : 'limit_reached';
  }

  get(id: number): Promise<Team | undefined> {
    return this.byId(id);
  }

  async children(parentId: number): Promise<Team[]> {
    const rows = await this.sql.all(`SELECT * FROM teams WHERE parent_id = ? AND ${LIVE} ORDER BY created_at, id`, [parentId]);
    return rows.map(decodeTeam);
  }

  async pooledBalance(team: Team): Promise<number> {
    if (team.parentId === null) return team.creditBalance;
    return (await this.get(team.parentId))?.creditBalance ?? 0;
  }

  async rename(id: number, name: string): Promise<Team | undefined> {
    const [row] = await this.sql.returning(`UPDATE teams SET name = ?, updated_at = ? WHERE id = ? AND ${LIVE} RETURNING *`, [name, nowIso(), id]);
    return row && decodeTeam(row);
  }

  /**
   * Moves a team's status through the one transition rule; the read and write share a transaction. A move to
   * suspended records why (the cause given, or who suspended) and when; reactivation clears it. A request that
   * changes nothing (an owner suspending a platform-suspended team, a second suspension) keeps the first record.
   */
  async changeStatus(id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusChange> {
    return this.sql.tx(async (q): Promise<StatusChange> => {
      const row = await q.get(`SELECT * FROM teams WHERE id = ? AND ${LIVE}`, [id]);
      if (!row) return { ok: false, refusal: 'not_found' };
      const team = decodeTeam(row);
      const next = transitionTeam(team, wanted, actor);
      if (!next.ok) return next;
      if (next.state.status === team.status && next.state.suspendedBy === team.suspendedBy) return { ok: true, team };
      const now = nowIso();
      const suspended = next.state.status === 'suspended';
      const why = cause ?? { reason: DEFAULT_SUSPENSION_REASON[actor] };
      const [changed] = await q.all(
        `UPDATE teams SET status = ?, suspended_by = ?, suspension_reason = ?, suspension_detail = ?, suspended_at = ?, updated_at = ?
         WHERE id = ? RETURNING *`,
        [
          next.state.status,
          next.state.suspendedBy,
          suspended ? why.reason : null,
          suspended && why.detail ? JSON.stringify(why.detail) : null,
          suspended ? now : null,
          now,
          id,
        ],
      );
      return { ok: true, team: decodeTeam(changed!) };
    });
  }

  async update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE teams SET limit_per_second = COALESCE(?, limit_per_second), plan_type = COALESCE(?, plan_type), updated_at = ?
       WHERE id = ? AND ${LIVE} RETURNING *`,
      [fields.limitPerSecond ?? null, fields.planType ?? null, nowIso(), id],
    );
    return row && decodeTeam(row);
  }

  async addCredits(accountId: number, amount: number): Promise<number | undefined> {
    const [row] = await this.sql.returning(
      'UPDATE teams SET credit_balance = credit_balance + ?, updated_at = ? WHERE id = ? AND parent_id IS NULL RETURNING credit_balance',
      [amount, nowIso(), accountId],
    );
    return row && decodeBalance(row);
  }

  /** Debits the pooled balance atomically; false when it would go below zero. */
  static async debit(q: Queryable, accountId: number, amount: number): Promise<boolean> {
    const res = await q.run('UPDATE teams SET credit_balance = credit_balance - ? WHERE id = ? AND credit_balance >= ?', [amount, accountId, amount]);
    return res.changes === 1;
  }
}
