// What the feedback loop keeps: events waiting for webhook delivery, reports received on the MX port, and
// the record of every webhook delivery attempt.
import type { WebhookEvent } from './webhook.js';

export const EVENT_STATES = ['pending', 'delivered'] as const;
export type EventState = (typeof EVENT_STATES)[number];

/**
 * A bounce or complaint of one recipient, in the outbox until every subscribed webhook had its attempt; or a
 * test event (a sample a user asked for), for one webhook only and about no message.
 */
export interface OutboxEvent {
  id: number;
  teamId: number;
  type: WebhookEvent;
  /** Null for a test event. */
  messageId: string | null;
  /** A test event's one webhook; null for a real event (every subscriber gets it). */
  testOf: number | null;
  email: string;
  /** Set for bounces only. */
  isHardBounce: boolean | null;
  reason: string;
  occurredAt: string;
  state: EventState;
}

/** A report (DSN or ARF) received on the MX port and not yet processed; its content is kept with it in the store. */
export interface InboundReport {
  id: string;
  mailFrom: string;
  rcptTo: string;
}

/** What processing a report came to: applied, or dropped with the reason (kept on the report's row). */
export interface ReportVerdict {
  state: 'processed' | 'dropped';
  kind: string;
  detail: string;
}

export interface WebhookDeliveryRecord {
  id: number;
  webhookId: number;
  teamId: number;
  eventId: number;
  eventType: WebhookEvent;
  url: string;
  /** The receiver's HTTP status, null when none came (refused, timed out, connection error). */
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  attemptedAt: string;
}
