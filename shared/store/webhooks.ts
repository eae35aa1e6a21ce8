// The webhooks repository: a team's webhooks, at most a configured number per team.
import type { Webhook, WebhookEvent, WebhookStatus } from '../domain/webhook.js';
import type { PageOf, PageRequest } from './paging.js';

export interface WebhookFields {
  title: string;
  url: string;
  events: WebhookEvent[];
  includeMessage: boolean;
}

export type WebhookChange = Partial<WebhookFields & { status: WebhookStatus }>;

export interface WebhookRepository {
  /** Creates an active webhook unless the team already has `limit`. */
  create(teamId: number, w: WebhookFields, secretEnc: string, limit: number): Promise<Webhook | 'limit_reached'>;
  get(id: number, teamId: number): Promise<Webhook | undefined>;
  /** A team's webhooks, oldest first. */
  list(teamId: number, page: PageRequest): Promise<PageOf<Webhook>>;
  /** The team's active webhooks subscribed to an event. */
  subscribers(teamId: number, event: WebhookEvent): Promise<Webhook[]>;
  /** Changes the fields given; undefined when the team has no such webhook. */
  update(id: number, teamId: number, change: WebhookChange): Promise<Webhook | undefined>;
  remove(id: number, teamId: number): Promise<boolean>;
}
