// Accounts and their child teams. A root account (parent_id NULL) holds the pooled credits.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Queryable, Sql } from './sql.js';
import { nowIso } from '../../shared/time.js';
import { transitionTeam, type Actor, type SuspendedBy, type TeamStatus } from '../../domain/team-state.js';

const Count = Type.Integer({ minimum: 0 });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });

/** The figures behind a suspension by policy: which rate passed, the team's figures over the window, the thresholds. */
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
export type SuspensionDetail = Static<typeof SuspensionDetailSchema>;

/** Why a team is suspended, kept with it from the suspension until it is reactivated. */
export interface Suspension {
  by: SuspendedBy;
  reason: string;
  /** ISO 8601 UTC, when the team was suspended. */
  at: string;
  /** Set when a policy suspended the team (platform suspension by reputation). */
  detail: SuspensionDetail | null;
}

/** What a caller says about a suspension it asks for; without it, who suspended is the reason. */
export interface SuspensionCause {
  reason: string;
  detail?: SuspensionDetail;
}

/** The reason recorded when a caller gives none: the platform's suspensions without one are the operator's. */
export const DEFAULT_SUSPENSION_REASON: Readonly<Record<Actor, string>> = { account: 'suspended by the account', platform: 'suspended by the operator' };

export interface Team {
  id: number;
  parentId: number | null;
  name: string;
  status: TeamStatus;
  suspendedBy: SuspendedBy | null;
  /** Null while the team is active. */
  suspension: Suspension | null;
  planType: string;
  creditBalance: number;
  limitPerSecond: number;
  backendRegion: string;
  createdAt: string;
  updatedAt: string;
}

interface TeamRow extends Record<string, unknown> {
  id: number;
  parent_id: number | null;
  name: string;
  status: TeamStatus;
  suspended_by: SuspendedBy | null;
  suspension_reason: string | null;
  suspension_detail: string | null;
  suspended_at: string | null;
  plan_type: string;
  credit_balance: number;
  limit_per_second: number;
  backend_region: string;
  created_at: string;
  updated_at: string;
}

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

function suspensionOf(r: TeamRow): Suspension | null {
  if (r.status !== 'suspended' || r.suspended_by === null) return null;
  return {
    by: r.suspended_by,
    reason: r.suspension_reason ?? DEFAULT_SUSPENSION_REASON[r.suspended_by],
    at: r.suspended_at ?? r.updated_at,
    detail: decodeDetail(r.suspension_detail),
  };
}

const toTeam = (r: TeamRow): Team => ({
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
});

export const rootIdOf = (team: Team): number => team.parentId ?? team.id;

export interface NewAccount {
  name: string;
  credits: number;
  limitPerSecond: number;
  planType: string;
  backendRegion: string;
}

export type StatusChange = { ok: true; team: Team } | { ok: false; refusal: 'suspended_by_platform' | 'not_found' };

export class AccountStore {
  constructor(private readonly sql: Sql) {}

  async count(): Promise<number> {
    const row = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts WHERE deleted_at IS NULL');
    return row?.n ?? 0;
  }

  async createAccount(a: NewAccount): Promise<Team> {
    const now = nowIso();
    const { lastId } = await this.sql.run(
      `INSERT INTO accounts (parent_id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at)
       VALUES (NULL, ?, ?, ?, ?, ?, ?, ?)`,
      [a.name, a.planType, a.credits, a.limitPerSecond, a.backendRegion, now, now],
    );
    return (await this.get(lastId))!;
  }

  /** Creates a child team unless the parent already has `limit` live teams. */
  async createTeam(parent: Team, name: string, limit: number): Promise<Team | 'limit_reached'> {
    const id = await this.sql.tx(async (q) => {
      const row = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts WHERE parent_id = ? AND deleted_at IS NULL', [parent.id]);
      if ((row?.n ?? 0) >= limit) return null;
      const now = nowIso();
      const { lastId } = await q.run(
        `INSERT INTO accounts (parent_id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at)
         VALUES (?, ?, ?, 0, ?, ?, ?, ?)`,
        [parent.id, name, parent.planType, parent.limitPerSecond, parent.backendRegion, now, now],
      );
      return lastId;
    });
    return id === null ? 'limit_reached' : (await this.get(id))!;
  }

  async get(id: number): Promise<Team | undefined> {
    const row = await this.sql.get<TeamRow>('SELECT * FROM accounts WHERE id = ? AND deleted_at IS NULL', [id]);
    return row && toTeam(row);
  }

  async children(parentId: number): Promise<Team[]> {
    const rows = await this.sql.all<TeamRow>('SELECT * FROM accounts WHERE parent_id = ? AND deleted_at IS NULL ORDER BY id', [parentId]);
    return rows.map(toTeam);
  }

  /** The pooled balance: always the root account's. */
  async pooledBalance(team: Team): Promise<number> {
    if (team.parentId === null) return team.creditBalance;
    return (await this.get(team.parentId))?.creditBalance ?? 0;
  }

  async rename(id: number, name: string): Promise<void> {
    await this.sql.run('UPDATE accounts SET name = ?, updated_at = ? WHERE id = ?', [name, nowIso(), id]);
  }

  /**
   * Moves a team's status through the one transition rule; the read and write share a transaction. A move to
   * suspended records why (the cause given, or who suspended) and when; reactivation clears it. A request that
   * changes nothing (an owner suspending a platform-suspended team, a second suspension) keeps the first record.
   */
  async changeStatus(id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusChange> {
    const outcome = await this.sql.tx(async (q) => {
      const row = await q.get<TeamRow>('SELECT * FROM accounts WHERE id = ? AND deleted_at IS NULL', [id]);
      if (!row) return { ok: false as const, refusal: 'not_found' as const };
      const next = transitionTeam({ status: row.status, suspendedBy: row.suspended_by }, wanted, actor);
      if (!next.ok) return next;
      if (next.state.status === row.status && next.state.suspendedBy === row.suspended_by) return { ok: true as const };
      const now = nowIso();
      const suspended = next.state.status === 'suspended';
      const why = cause ?? { reason: DEFAULT_SUSPENSION_REASON[actor] };
      await q.run(
        'UPDATE accounts SET status = ?, suspended_by = ?, suspension_reason = ?, suspension_detail = ?, suspended_at = ?, updated_at = ? WHERE id = ?',
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
      return { ok: true as const };
    });
    return outcome.ok ? { ok: true, team: (await this.get(id))! } : outcome;
  }

  async update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined> {
    await this.sql.run(
      `UPDATE accounts SET limit_per_second = COALESCE(?, limit_per_second), plan_type = COALESCE(?, plan_type), updated_at = ?
       WHERE id = ? AND deleted_at IS NULL`,
      [fields.limitPerSecond ?? null, fields.planType ?? null, nowIso(), id],
    );
    return this.get(id);
  }

  async addCredits(rootId: number, amount: number): Promise<number | undefined> {
    return this.sql.tx(async (q) => {
      const changed = await q.run('UPDATE accounts SET credit_balance = credit_balance + ?, updated_at = ? WHERE id = ? AND parent_id IS NULL', [
        amount,
        nowIso(),
        rootId,
      ]);
      if (!changed.changes) return undefined;
      return (await q.get<{ b: number }>('SELECT credit_balance AS b FROM accounts WHERE id = ?', [rootId]))?.b;
    });
  }

  /** Debits the pooled balance atomically; false when it would go below zero. */
  static async debit(q: Queryable, rootId: number, amount: number): Promise<boolean> {
    const res = await q.run('UPDATE accounts SET credit_balance = credit_balance - ? WHERE id = ? AND credit_balance >= ?', [amount, rootId, amount]);
    return res.changes === 1;
  }
}
