// Webhooks of a team. The signing secret is stored sealed (see secret-box).
import type { Sql } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../shared/time.js';

export const WEBHOOK_EVENTS = ['bounced', 'complaint'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export type WebhookStatus = 'active' | 'inactive';

export interface Webhook {
  id: number;
  accountId: number;
  title: string;
  url: string;
  events: WebhookEvent[];
  status: WebhookStatus;
  includeMessage: boolean;
  secretEnc: string;
  createdAt: string;
  updatedAt: string;
}

interface WebhookRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  title: string;
  url: string;
  events: string;
  status: WebhookStatus;
  include_message: number;
  secret_enc: string;
  created_at: string;
  updated_at: string;
}

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  accountId: r.account_id,
  title: r.title,
  url: r.url,
  events: JSON.parse(r.events) as WebhookEvent[],
  status: r.status,
  includeMessage: r.include_message === 1,
  secretEnc: r.secret_enc,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface WebhookFields {
  title: string;
  url: string;
  events: WebhookEvent[];
  includeMessage: boolean;
}

export type WebhookChange = Partial<WebhookFields & { status: WebhookStatus }>;

export class WebhookStore {
  constructor(private readonly sql: Sql) {}

  async create(accountId: number, w: WebhookFields, secretEnc: string, limit: number): Promise<Webhook | 'limit_reached'> {
    const id = await this.sql.tx(async (q) => {
      const row = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?', [accountId]);
      if ((row?.n ?? 0) >= limit) return null;
      const now = nowIso();
      const res = await q.run(
        `INSERT INTO webhooks (account_id, title, url, events, include_message, secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [accountId, w.title, w.url, JSON.stringify(w.events), +w.includeMessage, secretEnc, now, now],
      );
      return res.lastId;
    });
    return id === null ? 'limit_reached' : (await this.get(id, accountId))!;
  }

  async get(id: number, accountId: number): Promise<Webhook | undefined> {
    const row = await this.sql.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', [id, accountId]);
    return row && toWebhook(row);
  }

  async list(accountId: number, page: PageRequest): Promise<PageOf<Webhook>> {
    const rows = await this.sql.all<WebhookRow>('SELECT * FROM webhooks WHERE account_id = ? ORDER BY id LIMIT ? OFFSET ?', [
      accountId,
      ...limitOffset(page),
    ]);
    const count = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?', [accountId]);
    return { rows: rows.map(toWebhook), total: count?.n ?? 0 };
  }

  /** Active webhooks of a team subscribed to an event (the delivery side, next issues). */
  async subscribers(accountId: number, event: WebhookEvent): Promise<Webhook[]> {
    const rows = await this.sql.all<WebhookRow>(
      `SELECT w.* FROM webhooks w, json_each(w.events) e WHERE w.account_id = ? AND w.status = 'active' AND e.value = ?`,
      [accountId, event],
    );
    return rows.map(toWebhook);
  }

  async update(id: number, accountId: number, change: WebhookChange): Promise<Webhook | undefined> {
    const res = await this.sql.run(
      `UPDATE webhooks SET title = COALESCE(?, title), url = COALESCE(?, url), events = COALESCE(?, events),
         include_message = COALESCE(?, include_message), status = COALESCE(?, status), updated_at = ?
       WHERE id = ? AND account_id = ?`,
      [
        change.title ?? null,
        change.url ?? null,
        change.events ? JSON.stringify(change.events) : null,
        change.includeMessage === undefined ? null : +change.includeMessage,
        change.status ?? null,
        nowIso(),
        id,
        accountId,
      ],
    );
    return res.changes ? this.get(id, accountId) : undefined;
  }

  async remove(id: number, accountId: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', [id, accountId])).changes === 1;
  }
}
