// Teams in PostgreSQL: accounts (parent_id NULL, holding the pooled credits) and their child teams. Under READ
// COMMITTED a read decides nothing for a later write unless its row is locked: the limit of teams per account
// is counted after the account's row is locked, and a status move reads its team FOR UPDATE.
import type { PgSql, Queryable, SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { decodeIcon, decodeTeam } from '../team-row.js';
import { applyEntry } from './credits.js';
import { CLI } from '../../domain/credits.js';
import { nowIso } from '../../time.js';
import { transitionTeam, type Actor, type TeamStatus } from '../../domain/team-state.js';
import { DEFAULT_SUSPENSION_REASON, payerIdOf, type StoredIcon, type SuspensionCause, type Team, type TeamIcon } from '../../domain/team.js';
import type { NewAccount, NewIcon, StatusChange, TeamRepository, TeamSettings } from '../teams.js';

/** A status change with the team as it was before it. */
export type StatusMove = { ok: true; before: Team; team: Team } | Extract<StatusChange, { ok: false }>;

const LIVE = 'deleted_at IS NULL';
const COLUMNS = 'parent_id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at';

/** The params of `CASE WHEN $n THEN $n+1 ELSE icon_url END, CASE WHEN … ELSE icon_id END`: unchanged when undefined. */
function iconColumns(icon: TeamIcon | null | undefined): SqlValue[] {
  if (icon === undefined) return [false, null, false, null];
  return [true, icon?.kind === 'url' ? icon.url : null, true, icon?.kind === 'uploaded' ? icon.id : null];
}

/** A team keeps only the uploaded icon it shows. */
async function dropUnshownIcons(q: Queryable, team: Team): Promise<void> {
  const shown = team.icon?.kind === 'uploaded' ? team.icon.id : '';
  await q.run('DELETE FROM team_icons WHERE team_id = $1 AND id <> $2', [team.id, shown]);
}

/** Locks a live team's row until the transaction ends; false when there is none. */
async function lockTeam(q: Queryable, id: number): Promise<boolean> {
  return (await q.get(`SELECT id FROM teams WHERE id = $1 AND ${LIVE} FOR UPDATE`, [id])) !== undefined;
}

export class PgTeamStore implements TeamRepository {
  constructor(private readonly sql: PgSql) {}

  async count(): Promise<number> {
    return countOf((await this.sql.get(`SELECT COUNT(*) AS n FROM teams WHERE ${LIVE}`))!);
  }

  /** The account and the grant of its first credits (an entry of the ledger like any other), in one transaction. */
  async createAccount(a: NewAccount): Promise<Team> {
    const now = nowIso();
    return this.sql.tx(async (q) => {
      const team = await PgTeamStore.insertAccount(q, a, now);
      if (a.credits === 0) return team;
      await applyEntry(q, { payerId: team.id, kind: 'grant', amount: a.credits, actor: CLI, reference: null, reason: 'first credits of the account' }, now);
      return { ...team, creditBalance: a.credits };
    });
  }

  /** An account with no credits yet, inside the caller's transaction (an accepted platform invitation's). */
  static async insertAccount(q: Queryable, a: Omit<NewAccount, 'credits'>, at: string): Promise<Team> {
    const row = await q.get(`INSERT INTO teams (${COLUMNS}) VALUES (NULL, $1, $2, 0, $3, $4, $5, $5) RETURNING *`, [
      a.name,
      a.planType,
      a.limitPerSecond,
      a.backendRegion,
      at,
    ]);
    return decodeTeam(row!);
  }

  /**
   * The account's row is locked first, then the count and the insert are one statement: the lock makes
   * creations for one account wait for each other, and the statement after it counts with a snapshot taken once
   * the lock is held, so it sees every team committed before (a single statement would keep its older snapshot).
   */
  async createTeam(parent: Team, name: string, limit: number): Promise<Team | 'limit_reached'> {
    const now = nowIso();
    return this.sql.tx(async (q) => {
      await lockTeam(q, parent.id);
      const row = await q.get(
        `INSERT INTO teams (${COLUMNS}) SELECT $1::bigint, $2::text, $3::text, 0, $4::bigint, $5::text, $6::text, $6::text
         WHERE (SELECT COUNT(*) FROM teams WHERE parent_id = $1 AND ${LIVE}) < $7 RETURNING *`,
        [parent.id, name, parent.planType, parent.limitPerSecond, parent.backendRegion, now, limit],
      );
      return row ? decodeTeam(row) : 'limit_reached';
    });
  }

  async get(id: number): Promise<Team | undefined> {
    const row = await this.sql.get(`SELECT * FROM teams WHERE id = $1 AND ${LIVE}`, [id]);
    return row && decodeTeam(row);
  }

  async children(parentId: number): Promise<Team[]> {
    const rows = await this.sql.all(`SELECT * FROM teams WHERE parent_id = $1 AND ${LIVE} ORDER BY created_at, id`, [parentId]);
    return rows.map(decodeTeam);
  }

  async payerBalance(team: Team): Promise<number> {
    const payerId = payerIdOf(team);
    if (payerId === team.id) return team.creditBalance;
    return (await this.get(payerId))?.creditBalance ?? 0;
  }

  async rename(id: number, name: string): Promise<Team | undefined> {
    const row = await this.sql.get(`UPDATE teams SET name = $1, updated_at = $2 WHERE id = $3 AND ${LIVE} RETURNING *`, [name, nowIso(), id]);
    return row && decodeTeam(row);
  }

  /**
   * Moves a team's status through the one transition rule; the team is read FOR UPDATE, so the rule decides on
   * the status no one else is changing. A move to suspended records why (the cause given, or who suspended) and
   * when; reactivation clears it. A request that changes nothing keeps the first record.
   */
  async changeStatus(id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusChange> {
    return this.sql.tx(async (q): Promise<StatusChange> => {
      const moved = await PgTeamStore.moveStatus(q, id, wanted, actor, cause);
      return moved.ok ? { ok: true, team: moved.team } : moved;
    });
  }

  /** changeStatus inside another repository's transaction (an operator's change recorded with it); the team before too. */
  static async moveStatus(q: Queryable, id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusMove> {
    const row = await q.get(`SELECT * FROM teams WHERE id = $1 AND ${LIVE} FOR UPDATE`, [id]);
    if (!row) return { ok: false, refusal: 'not_found' };
    const team = decodeTeam(row);
    const next = transitionTeam(team, wanted, actor);
    if (!next.ok) return next;
    if (next.state.status === team.status && next.state.suspendedBy === team.suspendedBy) return { ok: true, before: team, team };
    const now = nowIso();
    const suspended = next.state.status === 'suspended';
    const why = cause ?? { reason: DEFAULT_SUSPENSION_REASON[actor] };
    const changed = await q.get(
      `UPDATE teams SET status = $1, suspended_by = $2, suspension_reason = $3, suspension_detail = $4, suspended_at = $5, updated_at = $6
       WHERE id = $7 RETURNING *`,
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
    return { ok: true, before: team, team: decodeTeam(changed!) };
  }

  async update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined> {
    const row = await this.sql.get(
      `UPDATE teams SET limit_per_second = COALESCE($1, limit_per_second), plan_type = COALESCE($2, plan_type), updated_at = $3
       WHERE id = $4 AND ${LIVE} RETURNING *`,
      [fields.limitPerSecond ?? null, fields.planType ?? null, nowIso(), id],
    );
    return row && decodeTeam(row);
  }

  /** The team is locked before its icon is checked: a concurrent upload cannot delete the icon in between. */
  async updateSettings(id: number, settings: TeamSettings): Promise<Team | 'no_such_icon' | undefined> {
    return this.sql.tx(async (q): Promise<Team | 'no_such_icon' | undefined> => {
      if (!(await lockTeam(q, id))) return undefined;
      const icon = settings.icon;
      if (icon?.kind === 'uploaded' && !(await q.get('SELECT 1 AS x FROM team_icons WHERE id = $1 AND team_id = $2', [icon.id, id]))) return 'no_such_icon';
      const row = await q.get(
        `UPDATE teams SET name = COALESCE($1, name), backend_region = COALESCE($2, backend_region), time_zone = COALESCE($3, time_zone),
           icon_url = CASE WHEN $4::boolean THEN $5 ELSE icon_url END, icon_id = CASE WHEN $6::boolean THEN $7 ELSE icon_id END, updated_at = $8
         WHERE id = $9 AND ${LIVE} RETURNING *`,
        [settings.name ?? null, settings.backendRegion ?? null, settings.timeZone ?? null, ...iconColumns(icon), nowIso(), id],
      );
      if (!row) return undefined;
      const team = decodeTeam(row);
      await dropUnshownIcons(q, team);
      return team;
    });
  }

  async saveIcon(icon: NewIcon): Promise<Team | undefined> {
    return this.sql.tx(async (q): Promise<Team | undefined> => {
      const row = await q.get(`UPDATE teams SET icon_url = NULL, icon_id = $1, updated_at = $2 WHERE id = $3 AND ${LIVE} RETURNING *`, [icon.id, nowIso(), icon.teamId]);
      if (!row) return undefined;
      // The same content uploaded again by the same team has the same id: kept once.
      await q.run('INSERT INTO team_icons (id, team_id, content_type, content, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [
        icon.id,
        icon.teamId,
        icon.contentType,
        icon.content,
        nowIso(),
      ]);
      const team = decodeTeam(row);
      await dropUnshownIcons(q, team);
      return team;
    });
  }

  async icon(id: string): Promise<StoredIcon | undefined> {
    const row = await this.sql.get('SELECT * FROM team_icons WHERE id = $1', [id]);
    return row && decodeIcon(row);
  }
}
