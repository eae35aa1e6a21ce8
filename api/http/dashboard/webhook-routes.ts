// The mailer's webhooks: GET/POST /webhooks, PUT/DELETE /webhooks/{webhook_hash} (the /v2 rules, the secret
// shown once) and GET /webhooks/logs (every delivery attempt, filtered by webhook, result and date). Items are
// /v2's with the opaque id (api/presenters/opaque-ids.ts). Translation only.
import { Type } from '@sinclair/typebox';
import { IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { invalidParam, valueOf } from '../../pipeline/refusal-errors.js';
import { corePage } from './mailer-paging.js';
import { idOf, opaqueId } from '../../presenters/opaque-ids.js';
import { present } from '../admin/webhooks.js';
import { notFound } from '../../../shared/core/management-refusals.js';
import { WEBHOOK_EVENTS, WEBHOOK_STATUSES, type Webhook } from '../../../shared/domain/webhook.js';
import type { WebhookDeliveryRecord } from '../../../shared/domain/feedback.js';
import { WEBHOOK_URL_MAX } from '../../../shared/webhook-url.js';

type Route = DashboardRoute<DashboardCaller>;

const webhookView = (w: Webhook) => ({ ...present(w), id: opaqueId('webhook', w.id) });

const deliveryView = (d: WebhookDeliveryRecord) => ({
  webhook: opaqueId('webhook', d.webhookId),
  event: d.eventType,
  event_id: d.eventId,
  url: d.url,
  result: d.statusCode !== null && d.statusCode >= 200 && d.statusCode <= 299 ? 'succeeded' : 'failed',
  status_code: d.statusCode,
  error: d.error,
  latency_ms: d.latencyMs,
  attempted_at: d.attemptedAt,
});

/** The webhook an opaque id names: its integer id, or the core's not-found answer. */
function webhookId(opaque: string): number {
  const id = idOf('webhook', opaque);
  if (id === undefined) valueOf(notFound('webhook', 'Webhook not found'));
  return id!;
}

const fields = {
  title: Type.String({ description: 'A name for the webhook.', maxLength: 100 }),
  url: Type.String({ description: 'https, or http on port 80, 443 or 8080; a public host name.', minLength: 1, maxLength: WEBHOOK_URL_MAX }),
  events: Type.Array(oneOf(WEBHOOK_EVENTS), { description: 'The events delivered.', minItems: 1, uniqueItems: true }),
  include_message: Type.Boolean({ description: 'Whether deliveries carry the message.' }),
};

const webhooks: Route = {
  namespace: 'tern/v2',
  path: '/webhooks',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's webhooks, oldest first",
      args: Type.Object({ ...collectionArgs }),
      async handle({ ctx, user, params, request }) {
        const page = await ctx.core.webhooks.list(signedIn(user).acting, corePage(params));
        return pageReply(request, params, page.rows.map(webhookView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Registers a webhook; its signing secret is in this answer only',
      args: Type.Object({ title: Type.Optional(fields.title), url: fields.url, events: fields.events, include_message: Type.Optional(fields.include_message) }),
      async handle({ ctx, user, params, log }) {
        const input = { title: params.title ?? '', url: params.url, events: params.events, includeMessage: params.include_message ?? false };
        const { webhook, secret } = valueOf(await ctx.core.webhooks.create(signedIn(user).acting, input, log));
        return { status: 201, body: { ...webhookView(webhook), secret } };
      },
    }),
  ],
};

const deliveries: Route = {
  namespace: 'tern/v2',
  path: '/webhooks/logs',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "Every delivery attempt of the team's webhooks, newest first",
      args: Type.Object({
        ...collectionArgs,
        webhook: Type.Optional(Type.String({ description: 'Only this webhook’s attempts (its opaque id).', pattern: `^${IDENTIFIER}$` })),
        result: Type.Optional(oneOf(['succeeded', 'failed'] as const, { description: 'succeeded: the receiver answered 2xx.' })),
        from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of the attempt time (a date means its start).', maxLength: 40 })),
        to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of the attempt time (a date means its end).', maxLength: 40 })),
      }),
      async handle({ ctx, user, params, request }) {
        const webhook = params.webhook === undefined ? undefined : webhookId(params.webhook);
        const filters = { webhookId: webhook, result: params.result, from: params.from, to: params.to };
        const page = valueOf(await ctx.core.webhooks.deliveries(signedIn(user).acting, { ...corePage(params), ...filters }));
        return pageReply(request, params, page.rows.map(deliveryView), page.total);
      },
    }),
  ],
};

const webhook: Route = {
  namespace: 'tern/v2',
  path: '/webhooks/{webhook_hash}',
  vars: { webhook_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['PUT'],
      permission: 'write',
      allowBatch: true,
      summary: 'Changes any field of a webhook, its status included',
      args: Type.Object({
        webhook_hash: Type.String({ description: 'The opaque id of the webhook.' }),
        title: Type.Optional(fields.title),
        url: Type.Optional(fields.url),
        events: Type.Optional(fields.events),
        include_message: Type.Optional(fields.include_message),
        status: Type.Optional(oneOf(WEBHOOK_STATUSES, { description: 'inactive: nothing is delivered.' })),
      }),
      async handle({ ctx, user, params, log }) {
        const change = { title: params.title, url: params.url, events: params.events, includeMessage: params.include_message, status: params.status };
        if (Object.values(change).every((v) => v === undefined)) {
          throw invalidParam('url', 'rest_missing_field', 'Give at least one of title, url, events, include_message, status.');
        }
        const updated = valueOf(await ctx.core.webhooks.update(signedIn(user).acting, webhookId(params.webhook_hash), change, log));
        return { body: webhookView(updated) };
      },
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      allowBatch: true,
      summary: 'Deletes a webhook',
      args: Type.Object({ webhook_hash: Type.String({ description: 'The opaque id of the webhook.' }) }),
      async handle({ ctx, user, params, log }) {
        valueOf(await ctx.core.webhooks.remove(signedIn(user).acting, webhookId(params.webhook_hash), log));
        return { body: { deleted: true, id: params.webhook_hash } };
      },
    }),
  ],
};

export const webhookRoutes: readonly Route[] = [webhooks, deliveries, webhook];
