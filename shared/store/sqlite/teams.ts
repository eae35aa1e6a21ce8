// Teams in SQLite: accounts (parent_id NULL, holding the pooled credits) and their child teams.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { inList, pointReads } from './point-reads.js';
import { countOf } from './decode.js';
import { decodeIcon, decodeTeam } from '../team-row.js';

export { decodeTeam };
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

/** The params of `CASE WHEN ? THEN ? ELSE icon_url END, CASE WHEN ? THEN ? ELSE icon_id END`: unchanged when undefined. */
function iconColumns(icon: TeamIcon | null | undefined): SqlValue[] {
  if (icon === undefined) return [0, null, 0, null];
  return [1, icon?.kind === 'url' ? icon.url : null, 1, icon?.kind === 'uploaded' ? icon.id : null];
}

/** A team keeps only the uploaded icon it shows. */
async function dropUnshownIcons(q: Queryable, team: Team): Promise<void> {
  const shown = team.icon?.kind === 'uploaded' ? team.icon.id : '';
  await q.run('DELETE FROM team_icons WHERE team_id = ? AND id <> ?', [team.id, shown]);
}

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

  /** The account and the grant of its first credits (an entry of the ledger like any other), in one transaction. */
  async createAccount(a: NewAccount): Promise<Team> {
    const now = nowIso();
    return this.sql.tx(async (q) => {
      const team = await TeamStore.insertAccount(q, a, now);
      if (a.credits === 0) return team;
      await applyEntry(q, { payerId: team.id, kind: 'grant', amount: a.credits, actor: CLI, reference: null, reason: 'first credits of the account' }, now);
      return { ...team, creditBalance: a.credits };
    });
  }

  /** An account with no credits yet, inside the caller's transaction (an accepted platform invitation's). */
  static async insertAccount(q: Queryable, a: Omit<NewAccount, 'credits'>, at: string): Promise<Team> {
    const row = await q.get(`INSERT INTO teams (${COLUMNS}) VALUES (NULL, ?, ?, 0, ?, ?, ?, ?) RETURNING *`, [
      a.name,
      a.planType,
      a.limitPerSecond,
      a.backendRegion,
      at,
      at,
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

  async payerBalance(team: Team): Promise<number> {
    const payerId = payerIdOf(team);
    if (payerId === team.id) return team.creditBalance;
    return (await this.get(payerId))?.creditBalance ?? 0;
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
      const moved = await TeamStore.moveStatus(q, id, wanted, actor, cause);
      return moved.ok ? { ok: true, team: moved.team } : moved;
    });
  }

  /** changeStatus inside another repository's transaction (an operator's change recorded with it); the team before too. */
  static async moveStatus(q: Queryable, id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusMove> {
    const row = await q.get(`SELECT * FROM teams WHERE id = ? AND ${LIVE}`, [id]);
    if (!row) return { ok: false, refusal: 'not_found' };
    const team = decodeTeam(row);
    const next = transitionTeam(team, wanted, actor);
    if (!next.ok) return next;
    if (next.state.status === team.status && next.state.suspendedBy === team.suspendedBy) return { ok: true, before: team, team };
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
    return { ok: true, before: team, team: decodeTeam(changed!) };
  }

  async update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE teams SET limit_per_second = COALESCE(?, limit_per_second), plan_type = COALESCE(?, plan_type), updated_at = ?
       WHERE id = ? AND ${LIVE} RETURNING *`,
      [fields.limitPerSecond ?? null, fields.planType ?? null, nowIso(), id],
    );
    return row && decodeTeam(row);
  }

  async updateSettings(id: number, settings: TeamSettings): Promise<Team | 'no_such_icon' | undefined> {
    return this.sql.tx(async (q): Promise<Team | 'no_such_icon' | undefined> => {
      const icon = settings.icon;
      if (icon?.kind === 'uploaded' && !(await q.get('SELECT 1 FROM team_icons WHERE id = ? AND team_id = ?', [icon.id, id]))) return 'no_such_icon';
      const [row] = await q.all(
        `UPDATE teams SET name = COALESCE(?, name), backend_region = COALESCE(?, backend_region), time_zone = COALESCE(?, time_zone),
           icon_url = CASE WHEN ? THEN ? ELSE icon_url END, icon_id = CASE WHEN ? THEN ? ELSE icon_id END, updated_at = ?
         WHERE id = ? AND ${LIVE} RETURNING *`,
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
      const [row] = await q.all(`UPDATE teams SET icon_url = NULL, icon_id = ?, updated_at = ? WHERE id = ? AND ${LIVE} RETURNING *`, [icon.id, nowIso(), icon.teamId]);
      if (!row) return undefined;
      // The same content uploaded again by the same team has the same id: kept once.
      await q.run('INSERT INTO team_icons (id, team_id, content_type, content, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING', [
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
    const row = await this.sql.get('SELECT * FROM team_icons WHERE id = ?', [id]);
    return row && decodeIcon(row);
  }
}
