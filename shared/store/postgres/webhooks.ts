// Webhooks of a team in PostgreSQL. The signing secret is stored sealed (see secret-box); the events are a JSON
// array in text, as on SQLite. The limit of webhooks per team is counted under the team's webhook lock.
import type { PgSql } from './sql.js';
import { countOf } from './decode.js';
import { decodeWebhook } from '../webhook-row.js';
import { lockOwner } from './owner-lock.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { Webhook, WebhookEvent } from '../../domain/webhook.js';
import type { WebhookChange, WebhookFields, WebhookRepository } from '../webhooks.js';

const INSERT = `INSERT INTO webhooks (team_id, title, url, events, include_message, secret_enc, created_at, updated_at)
  SELECT $1::bigint, $2::text, $3::text, $4::text, $5::smallint, $6::text, $7::text, $7::text WHERE (SELECT COUNT(*) FROM webhooks WHERE team_id = $1) < $8 RETURNING *`;

/** A field left null keeps its value. */
const UPDATE = `UPDATE webhooks SET title = COALESCE($1, title), url = COALESCE($2, url), events = COALESCE($3, events),
    include_message = COALESCE($4, include_message), status = COALESCE($5, status), updated_at = $6
  WHERE id = $7 AND team_id = $8 RETURNING *`;

export class PgWebhookStore implements WebhookRepository {
  constructor(private readonly sql: PgSql) {}

  /**
   * The count and the insert are one statement, as on SQLite; under READ COMMITTED two inserts started together
   * would both count the same committed webhooks, so creations for one team first take the team's webhook lock
   * and the insert, a statement after it, counts every webhook its predecessor committed.
   */
  create(teamId: number, w: WebhookFields, secretEnc: string, limit: number): Promise<Webhook | 'limit_reached'> {
    return this.sql.tx(async (q) => {
      await lockOwner(q, 'webhooks', teamId);
      const row = await q.get(INSERT, [teamId, w.title, w.url, JSON.stringify(w.events), +w.includeMessage, secretEnc, nowIso(), limit]);
      return row ? decodeWebhook(row) : 'limit_reached';
    });
  }

  async get(id: number, teamId: number): Promise<Webhook | undefined> {
    const row = await this.sql.get('SELECT * FROM webhooks WHERE id = $1 AND team_id = $2', [id, teamId]);
    return row && decodeWebhook(row);
  }

  async list(teamId: number, page: PageRequest): Promise<PageOf<Webhook>> {
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all('SELECT * FROM webhooks WHERE team_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3', [teamId, limit, offset]);
    const count = await this.sql.get('SELECT COUNT(*) AS n FROM webhooks WHERE team_id = $1', [teamId]);
    return { rows: rows.map(decodeWebhook), total: countOf(count!) };
  }

  /** `jsonb ? text`: the JSON array of events holds the event's name (SQLite: json_each). */
  async subscribers(teamId: number, event: WebhookEvent): Promise<Webhook[]> {
    const rows = await this.sql.all(`SELECT * FROM webhooks WHERE team_id = $1 AND status = 'active' AND events::jsonb ? $2 ORDER BY created_at, id`, [teamId, event]);
    return rows.map(decodeWebhook);
  }

  async update(id: number, teamId: number, change: WebhookChange): Promise<Webhook | undefined> {
    const row = await this.sql.get(UPDATE, [
      change.title ?? null,
      change.url ?? null,
      change.events ? JSON.stringify(change.events) : null,
      change.includeMessage === undefined ? null : +change.includeMessage,
      change.status ?? null,
      nowIso(),
      id,
      teamId,
    ]);
    return row && decodeWebhook(row);
  }

  async remove(id: number, teamId: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM webhooks WHERE id = $1 AND team_id = $2', [id, teamId])).changes === 1;
  }
}
