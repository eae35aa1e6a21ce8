// The rows of what happens after delivery as both engines store them (events, webhook deliveries, inbound
// reports: the same columns in SQLite and PostgreSQL), decoded into domain values.
import { Type } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { EVENT_STATES, type InboundReport, type OutboxEvent, type WebhookDeliveryRecord } from '../domain/feedback.js';
import { WEBHOOK_EVENTS } from '../domain/webhook.js';

export const decodeEvent = rowDecoder(
  'event',
  Type.Object({
    id: Int,
    team_id: Int,
    type: OneOf(WEBHOOK_EVENTS),
    message_id: Nullable(Text),
    webhook_id: Nullable(Int),
    email: Text,
    is_hard_bounce: Nullable(Flag),
    reason: Text,
    occurred_at: Text,
    state: OneOf(EVENT_STATES),
  }),
  (e): OutboxEvent => ({
    id: e.id,
    teamId: e.team_id,
    type: e.type,
    messageId: e.message_id,
    testOf: e.webhook_id,
    email: e.email,
    isHardBounce: e.is_hard_bounce === null ? null : e.is_hard_bounce === 1,
    reason: e.reason,
    occurredAt: e.occurred_at,
    state: e.state,
  }),
);

export const decodeDelivery = rowDecoder(
  'webhook delivery',
  Type.Object({
    id: Int,
    webhook_id: Int,
    team_id: Int,
    event_id: Int,
    event_type: OneOf(WEBHOOK_EVENTS),
    url: Text,
    status_code: Nullable(Int),
    error: Nullable(Text),
    latency_ms: Int,
    attempted_at: Text,
  }),
  (d): WebhookDeliveryRecord => ({
    id: d.id,
    webhookId: d.webhook_id,
    teamId: d.team_id,
    eventId: d.event_id,
    eventType: d.event_type,
    url: d.url,
    statusCode: d.status_code,
    error: d.error,
    latencyMs: d.latency_ms,
    attemptedAt: d.attempted_at,
  }),
);

export const decodeReport = rowDecoder('inbound report', Type.Object({ id: Text, mail_from: Text, rcpt_to: Text }), (r): InboundReport => ({
  id: r.id,
  mailFrom: r.mail_from,
  rcptTo: r.rcpt_to,
}));

export const decodeAddressed = rowDecoder('recipient', Type.Object({ id: Int, email: Text }), (r) => r);
