// Webhooks of a team in SQLite. The signing secret is stored sealed (see secret-box).
import type { Sql } from './sql.js';
import { countOf } from './decode.js';
import { decodeWebhook } from '../webhook-row.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { Webhook, WebhookEvent } from '../../domain/webhook.js';
import type { WebhookChange, WebhookFields, WebhookRepository } from '../webhooks.js';

export class WebhookStore implements WebhookRepository {
  constructor(private readonly sql: Sql) {}

  /** One conditional insert: the count and the insert are one statement (see docs/decisions.md, "Limits kept by the store"). */
  async create(teamId: number, w: WebhookFields, secretEnc: string, limit: number): Promise<Webhook | 'limit_reached'> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      `INSERT INTO webhooks (team_id, title, url, events, include_message, secret_enc, created_at, updated_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM webhooks WHERE team_id = ?) < ? RETURNING *`,
      [teamId, w.title, w.url, JSON.stringify(w.events), +w.includeMessage, secretEnc, now, now, teamId, limit],
    );
    return row ? decodeWebhook(row) : 'limit_reached';
  }

  async get(id: number, teamId: number): Promise<Webhook | undefined> {
    const row = await this.sql.get('SELECT * FROM webhooks WHERE id = ? AND team_id = ?', [id, teamId]);
    return row && decodeWebhook(row);
  }

  async list(teamId: number, page: PageRequest): Promise<PageOf<Webhook>> {
    const rows = await this.sql.all('SELECT * FROM webhooks WHERE team_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?', [teamId, ...limitOffset(page)]);
    const count = await this.sql.get('SELECT COUNT(*) AS n FROM webhooks WHERE team_id = ?', [teamId]);
    return { rows: rows.map(decodeWebhook), total: countOf(count!) };
  }

  async subscribers(teamId: number, event: WebhookEvent): Promise<Webhook[]> {
    const rows = await this.sql.all(
      `SELECT w.* FROM webhooks w WHERE w.team_id = ? AND w.status = 'active' AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value = ?)
       ORDER BY w.created_at, w.id`,
      [teamId, event],
    );
    return rows.map(decodeWebhook);
  }

  async update(id: number, teamId: number, change: WebhookChange): Promise<Webhook | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE webhooks SET title = COALESCE(?, title), url = COALESCE(?, url), events = COALESCE(?, events),
         include_message = COALESCE(?, include_message), status = COALESCE(?, status), updated_at = ?
       WHERE id = ? AND team_id = ? RETURNING *`,
      [
        change.title ?? null,
        change.url ?? null,
        change.events ? JSON.stringify(change.events) : null,
        change.includeMessage === undefined ? null : +change.includeMessage,
        change.status ?? null,
        nowIso(),
        id,
        teamId,
      ],
    );
    return row && decodeWebhook(row);
  }

  async remove(id: number, teamId: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM webhooks WHERE id = ? AND team_id = ?', [id, teamId])).changes === 1;
  }
}
