// /v2/webhooks: where the team's bounced and complaint events are delivered, signed with a secret
// generated here (Standard Webhooks format), shown once, stored sealed.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { DataOf, Deleted, IdParams, ListEnvelope, PageQuery } from '../schemas/common.js';
import { WEBHOOK_URL_MAX } from '../../../shared/webhook-url.js';
import { WEBHOOK_EVENTS, type Webhook } from '../../../shared/domain/webhook.js';
import { envelope, pageFrom } from '../../pipeline/paging.js';
import { valueOf } from './refusal-errors.js';

const Event = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));
const Events = Type.Array(Event, { minItems: 1, uniqueItems: true });
const Title = Type.String({ maxLength: 100 });
const Url = Type.String({ minLength: 1, maxLength: WEBHOOK_URL_MAX, description: 'https, or http on port 80, 443 or 8080; public host name' });
const Status = Type.Union([Type.Literal('active'), Type.Literal('inactive')]);

const WebhookBody = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  url: Type.String(),
  events: Type.Array(Event),
  status: Status,
  include_message: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const WebhookCreated = Type.Intersect([WebhookBody, Type.Object({ secret: Type.String({ pattern: '^whsec_' }) })]);

/** A webhook as /v2 shows it (shared with the dashboard's /webhooks, which replaces the id). */
export const present = (w: Webhook) => ({
  id: w.id,
  title: w.title,
  url: w.url,
  events: w.events,
  status: w.status,
  include_message: w.includeMessage,
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});

const fieldCodes = { events: 'unsupported_event', url: 'invalid_url' } as const;

const list = defineRoute({
  method: 'GET',
  path: '/v2/webhooks',
  summary: 'List the team’s webhooks',
  tag: 'Webhooks',
  scopes: ['webhooks:read'],
  rate: null,
  query: Type.Object(PageQuery),
  responses: { 200: { description: 'Webhooks', schema: ListEnvelope(WebhookBody) } },
  async handle({ ctx, caller, query }) {
    const page = pageFrom(query, ctx.config);
    const { rows, total } = await ctx.core.webhooks.list(caller.acting, page);
    return { body: envelope(rows.map(present), total, page) };
  },
});

const create = defineRoute({
  method: 'POST',
  path: '/v2/webhooks',
  summary: 'Register a webhook; the signing secret is returned once',
  tag: 'Webhooks',
  scopes: ['webhooks:write'],
  rate: 'writes',
  body: Type.Object({ title: Type.Optional(Title), url: Url, events: Events, include_message: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  fieldCodes,
  responses: {
    201: { description: 'Webhook created, with its secret', schema: DataOf(WebhookCreated) },
    422: { description: 'Unsupported event, invalid url, or the team has its maximum number of webhooks' },
  },
  async handle({ ctx, caller, body, log }) {
    const fields = { title: body.title ?? '', url: body.url, events: body.events, includeMessage: body.include_message ?? false };
    const { webhook, secret } = valueOf(await ctx.core.webhooks.create(caller.acting, fields, log));
    return { status: 201, body: { data: { ...present(webhook), secret } } };
  },
});

const update = defineRoute({
  method: 'PUT',
  path: '/v2/webhooks/{id}',
  summary: 'Change any field of a webhook, including its status',
  tag: 'Webhooks',
  scopes: ['webhooks:write'],
  rate: 'writes',
  params: IdParams,
  body: Type.Object(
    {
      title: Type.Optional(Title),
      url: Type.Optional(Url),
      events: Type.Optional(Events),
      include_message: Type.Optional(Type.Boolean()),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  fieldCodes,
  responses: { 200: { description: 'Webhook updated', schema: DataOf(WebhookBody) }, 404: { description: 'No such webhook on this team' } },
  async handle({ ctx, caller, params, body, log }) {
    const change = {
      title: body.title,
      url: body.url,
      events: body.events,
      includeMessage: body.include_message,
      status: body.status,
    };
    const updated = valueOf(await ctx.core.webhooks.update(caller.acting, params.id, change, log));
    return { body: { data: present(updated) } };
  },
});

const remove = defineRoute({
  method: 'DELETE',
  path: '/v2/webhooks/{id}',
  summary: 'Delete a webhook',
  tag: 'Webhooks',
  scopes: ['webhooks:write'],
  rate: 'writes',
  params: IdParams,
  responses: { 200: { description: 'Deleted', schema: Deleted }, 404: { description: 'No such webhook on this team' } },
  async handle({ ctx, caller, params, log }) {
    valueOf(await ctx.core.webhooks.remove(caller.acting, params.id, log));
    return { body: { deleted: true } };
  },
});

export const webhookRoutes: AnyRoute[] = [list, create, update, remove];
