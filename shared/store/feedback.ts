// The feedback repository: the event outbox, webhook delivery records, reputation figures, and the reports
// received on the MX port. Bounces and complaints are applied through the unit of work (queue/effects.ts).
import type { InboundReport, OutboxEvent, ReportVerdict, WebhookDeliveryRecord } from '../domain/feedback.js';
import type { PageOf, PageRequest } from './paging.js';
import type { WebhookEvent } from '../domain/webhook.js';

/** Where a bounce comes from: a reply, a report (DSN), the queue's expiry, or an operator's purge with notice. */
export type BounceSource = 'smtp' | 'report' | 'expiry' | 'purge';

export interface BounceInput {
  recipientId: number;
  hard: boolean;
  reason: string;
  source: BounceSource;
}

export interface ComplaintInput {
  recipientId: number;
  reason: string;
}

/** What a report changed, for logs and the reputation check. */
export interface Applied {
  teamId: number;
  messageId: string;
  email: string;
  /** Null when this recipient already had this event (a repeated report). */
  eventId: number | null;
  suppressed: boolean;
}

/** One attempt to record: the record without what the store gives it (its id and time). */
export type NewWebhookDelivery = Omit<WebhookDeliveryRecord, 'id' | 'attemptedAt'>;

/** A test event to put in the outbox, for one webhook of the team. */
export interface NewTestEvent {
  teamId: number;
  webhookId: number;
  type: WebhookEvent;
  email: string;
  isHardBounce: boolean | null;
  reason: string;
}

/** A team's recipients sent, bounced or complained in a window (the statistics' count), and how many bounced or complained. */
export interface ReputationFigures {
  volume: number;
  bounced: number;
  complained: number;
}

/** Which delivery attempts to list: one webhook's, succeeded (a 2xx answer) or failed, attempted within bounds. */
export interface DeliveryQuery extends PageRequest {
  webhookId?: number;
  result?: 'succeeded' | 'failed';
  /** ISO 8601 UTC bounds of attempted_at, inclusive. */
  from?: string;
  to?: string;
}

export interface FeedbackRepository {
  /** The recipient a message's Message-ID header and an address point at (ARF without a VERP address). */
  recipientByMessageIdHeader(messageIdHeader: string, email: string | null): Promise<number | null>;
  /** Events still in the outbox, oldest first. */
  pendingEvents(limit: number): Promise<OutboxEvent[]>;
  /**
   * Leases up to `limit` events of the outbox, oldest first, to one dispatcher under `token` until `leaseUntil`
   * (epoch ms): an event another dispatcher holds is skipped unless its lease ran out at `now`, and then it is
   * taken over (the new token fences out the old holder). The events stay pending until finished.
   */
  claimEvents(limit: number, now: number, leaseUntil: number, token: string): Promise<OutboxEvent[]>;
  /** Marks a claimed event delivered if `token` still holds it; false when it was taken over (or is already delivered). */
  finishEvent(eventId: number, token: string): Promise<boolean>;
  /** Gives back the events `token` still holds (a round's leftovers), pending and free to claim at once; how many. */
  releaseEvents(token: string): Promise<number>;
  /** How many events wait in the outbox (the operator's status). */
  countPendingEvents(): Promise<number>;
  /** Every event of a message, delivered or not, oldest first. */
  eventsOf(messageId: string): Promise<OutboxEvent[]>;
  /** Puts a test event in the outbox (pending, for `webhookId` only). */
  addTestEvent(e: NewTestEvent): Promise<OutboxEvent>;
  markDelivered(eventId: number): Promise<void>;
  logDelivery(d: NewWebhookDelivery): Promise<void>;
  /** A team's most recent webhook delivery attempts, newest first. */
  deliveriesOf(teamId: number, limit?: number): Promise<WebhookDeliveryRecord[]>;
  /** A team's delivery attempts of these events (a message's), oldest first. */
  deliveriesOfEvents(teamId: number, eventIds: readonly number[]): Promise<WebhookDeliveryRecord[]>;
  /** A team's delivery attempts matching the query, newest first, with their total. */
  listDeliveries(teamId: number, query: DeliveryQuery): Promise<PageOf<WebhookDeliveryRecord>>;
  /** Drops delivery records attempted before `olderThanIso`; how many. */
  pruneDeliveries(olderThanIso: string): Promise<number>;
  /** Bounce and complaint figures of a team over recipients of messages accepted since `sinceMs`, from the statistics' counters. */
  rates(teamId: number, sinceMs: number): Promise<ReputationFigures>;
  /**
   * Records reports received on the MX port (one per envelope recipient) with their content, in one transaction,
   * before the listener answers 250: once this resolves, no crash and no lost machine loses them.
   */
  addReports(reports: readonly InboundReport[], body: Buffer): Promise<void>;
  /** Reports not yet processed, oldest first (with a body or not: the operator's and the tests' read). */
  waitingReports(limit: number): Promise<InboundReport[]>;
  /**
   * Leases up to `limit` waiting reports that have their body, oldest first, to one worker under `token` until
   * `leaseUntil` (epoch ms): a report another worker holds is skipped unless its lease ran out at `now`, and then
   * it is taken over (the new token fences out the old holder). The reports stay waiting until finished.
   */
  claimReports(limit: number, now: number, leaseUntil: number, token: string): Promise<InboundReport[]>;
  /** A waiting report's content; null once it is finished (its body is dropped then), or when it has none. */
  reportBody(id: string): Promise<Buffer | null>;
  /**
   * Records a claimed report's verdict and drops its body, if `token` still holds it; false when it was taken
   * over (or is already finished), and then nothing changes.
   */
  finishReport(id: string, token: string, verdict: ReportVerdict): Promise<boolean>;
  /** Gives back the reports `token` still holds (a pass's leftovers), free to claim at once; how many. */
  releaseReports(token: string): Promise<number>;
  /**
   * Gives a waiting report without a body (recorded by a release that kept bodies in a file spool) the body
   * found in that spool; false when the report is not waiting or has a body already.
   */
  attachReportBody(id: string, body: Buffer): Promise<boolean>;
  /** Finishes as `verdict` every waiting report that has no body (one whose spool file is gone); how many. */
  finishReportsWithoutBody(verdict: ReportVerdict): Promise<number>;
}
