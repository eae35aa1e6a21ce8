// A team's webhooks: where its bounce and complaint events are delivered, each signed with a secret made
// here (Standard Webhooks), shown once and stored sealed; and the record of every delivery attempt.
import { randomBytes } from 'node:crypto';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { Webhook } from '../domain/webhook.js';
import type { WebhookChange, WebhookFields } from '../store/webhooks.js';
import { checkWebhookUrl } from '../shared/webhook-url.js';
import type { WebhookDeliveryRecord } from '../domain/feedback.js';
import { dateBound } from './message-log.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export interface WebhookDeps {
  config: Config;
  store: Store;
  secrets: SecretBox;
}

export interface CreatedWebhook {
  webhook: Webhook;
  /** The signing secret, `whsec_…`: returned once. */
  secret: string;
}

export interface DeliveryFilters extends PageRequest {
  webhookId?: number;
  result?: 'succeeded' | 'failed';
  /** ISO 8601 dates or date-times; a date alone means its first (from) or last (to) millisecond, in UTC. */
  from?: string;
  to?: string;
}

export class Webhooks {
  constructor(private readonly d: WebhookDeps) {}

  list(team: Team, page: PageRequest): Promise<PageOf<Webhook>> {
    return this.d.store.webhooks.list(team.id, page);
  }

  async create(team: Team, fields: WebhookFields, log: Logger): Promise<Managed<CreatedWebhook>> {
    const url = checkWebhookUrl(fields.url);
    if (!url.ok) return refuse({ kind: 'invalid_url', message: `Invalid webhook url: ${url.reason}` });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const limit = this.d.config.limits.webhooksPerTeam;
    const created = await this.d.store.webhooks.create(team.id, { ...fields, url: url.url }, this.d.secrets.seal(secret), limit);
    if (created === 'limit_reached') return refuse({ kind: 'limit_reached', what: 'webhooks', limit });
    log.info({ webhook: created.id, team: team.id }, 'webhook created');
    return done({ webhook: created, secret });
  }

  async update(team: Team, id: number, change: WebhookChange, log: Logger): Promise<Managed<Webhook>> {
    let url: string | undefined;
    if (change.url !== undefined) {
      const checked = checkWebhookUrl(change.url);
      if (!checked.ok) return refuse({ kind: 'invalid_url', message: `Invalid webhook url: ${checked.reason}` });
      url = checked.url;
    }
    const updated = await this.d.store.webhooks.update(id, team.id, { ...change, url });
    if (!updated) return notFound('webhook', 'Webhook not found');
    log.info({ webhook: id, team: team.id }, 'webhook updated');
    return done(updated);
  }

  /** The team's delivery attempts, newest first: of one of its webhooks, by result, within date bounds. */
  async deliveries(team: Team, f: DeliveryFilters): Promise<Managed<PageOf<WebhookDeliveryRecord>>> {
    const from = dateBound(f.from, false);
    const to = dateBound(f.to, true);
    if (from === null) return refuse({ kind: 'invalid_field', field: 'from', message: 'from must be an ISO 8601 date or date-time' });
    if (to === null) return refuse({ kind: 'invalid_field', field: 'to', message: 'to must be an ISO 8601 date or date-time' });
    if (f.webhookId !== undefined && !(await this.d.store.webhooks.get(f.webhookId, team.id))) return notFound('webhook', 'Webhook not found', 'webhook');
    return done(await this.d.store.feedback.listDeliveries(team.id, { page: f.page, perPage: f.perPage, webhookId: f.webhookId, result: f.result, from, to }));
  }

  async remove(team: Team, id: number, log: Logger): Promise<Managed<void>> {
    if (!(await this.d.store.webhooks.remove(id, team.id))) return notFound('webhook', 'Webhook not found');
    log.info({ webhook: id, team: team.id }, 'webhook removed');
    return done(undefined);
  }
}
