// A webhook's row as both engines store it (events as a JSON array in text), decoded into a Webhook.
import { Type } from '@sinclair/typebox';
import { Flag, Int, jsonDecoder, OneOf, rowDecoder, Text } from './decode.js';
import { WEBHOOK_EVENTS, WEBHOOK_STATUSES, type Webhook } from '../domain/webhook.js';

const WebhookRow = Type.Object({
  id: Int,
  team_id: Int,
  title: Text,
  url: Text,
  events: Text,
  status: OneOf(WEBHOOK_STATUSES),
  include_message: Flag,
  secret_enc: Text,
  created_at: Text,
  updated_at: Text,
});

const decodeEvents = jsonDecoder('webhook events', Type.Array(OneOf(WEBHOOK_EVENTS)));

export const decodeWebhook = rowDecoder('webhook', WebhookRow, (r): Webhook => ({
  id: r.id,
  teamId: r.team_id,
  title: r.title,
  url: r.url,
  events: decodeEvents(r.events),
  status: r.status,
  includeMessage: r.include_message === 1,
  secretEnc: r.secret_enc,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));
