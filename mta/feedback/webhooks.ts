// The webhook dispatcher: drains the event outbox (written by outcome.ts in the same transaction as the
// bounce or complaint) outside the delivery path, so a slow receiver never slows mail. Each event goes
// once, with no retry (the specification), to every active webhook of its team subscribed to it, signed by the
// Standard Webhooks scheme; every attempt is recorded for the dashboard's logs.
import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Runtime } from '../../shared/runtime/runtime.js';
import type { OutboxEvent } from '../../shared/domain/feedback.js';
import type { Webhook } from '../../shared/domain/webhook.js';
import { safePost, type PostOutcome } from '../../shared/safe-http.js';
import { signature, standardWebhookHeaders } from '../../shared/webhook-signing.js';

export interface WebhookDispatcherDeps {
  rt: Runtime;
  resolver: Resolver;
  /** PEM file of extra CAs trusted for https receivers, beside the system roots (private PKI, tests). */
  caFile?: string;
  /** Per attempt, resolution included (10 s). */
  timeoutMs?: number;
  /** How often the outbox is looked at without a wake() (1 s). */
  pollMs?: number;
}

/** The `message` object of an include_message webhook. */
export interface MessageSummary {
  id: string;
  subject: string;
  from: string;
  to: Array<{ email: string; name?: string }>;
  sent_at: string | null;
}

export const USER_AGENT = 'Tern-Webhooks/1.0';
const BATCH = 32;
const PARALLEL_EVENTS = 8;
const PRUNE_EVERY_MS = 3_600_000;
// A round's events are leased to it in the store (claimEvents), so the dispatchers of several MTAs drain the
// outbox together and never send one event twice while its lease runs. Longer than a batch can take:
// ceil(32 / 8) waves of at most one 10 s attempt each. A dispatcher that dies leaves its events to be taken
// over when the lease runs out.
const LEASE_MS = 120_000;

/** The JSON body: the specification's event fields, plus the message when the webhook asks for it; a test event says so. */
export function eventBody(event: OutboxEvent, message: MessageSummary | null): string {
  return JSON.stringify({
    ...(event.testOf !== null ? { test: true } : {}),
    event: event.type,
    message_id: event.messageId,
    email: event.email,
    ...(event.type === 'bounced' ? { is_hard_bounce: event.isHardBounce === true } : {}),
    reason: event.reason,
    team_id: event.teamId,
    occurred_at: event.occurredAt,
    ...(message ? { message } : {}),
  });
}

export { signature };

export function signedHeaders(secret: string, eventId: number, body: string, now = Date.now()): Record<string, string> {
  // Stable per event, so a receiver can drop a copy it already has (Standard Webhooks idempotency).
  return standardWebhookHeaders(secret, `evt_${eventId}`, body, USER_AGENT, now);
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function recorded(outcome: PostOutcome): { statusCode: number | null; error: string | null } {
  if (outcome.kind === 'response') return { statusCode: outcome.statusCode, error: outcome.error };
  return { statusCode: null, error: outcome.reason };
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = true;
  /** Set when a wake() or a full batch arrives during a round: the next round starts at once. */
  private again = false;
  private lastPrune = 0;
  private readonly ca: string[] | undefined;
  private readonly timeoutMs: number;
  private readonly pollMs: number;

  constructor(private readonly d: WebhookDispatcherDeps) {
    // Read once at start: a missing file stops the MTA start rather than every delivery.
    this.ca = d.caFile ? [...rootCertificates, readFileSync(d.caFile, 'utf8')] : undefined;
    this.timeoutMs = d.timeoutMs ?? 10_000;
    this.pollMs = d.pollMs ?? 1000;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Waits for the round in flight (its attempts end within the timeout), then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** New events are in the outbox. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** One round over a batch of pending events; returns how many were handled. Never throws. */
  round(): Promise<number> {
    this.running ??= this.claimedRound()
      .catch((err: Error) => {
        this.d.rt.log.error({ err: err.message }, 'webhook round failed');
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.again = false;
      void this.round().finally(() => this.schedule(this.again ? 0 : this.pollMs));
    }, delay);
  }

  /** A batch claimed under a token of the round's own; what the round did not finish (a stop) is given back at its end. */
  private async claimedRound(): Promise<number> {
    const { feedback } = this.d.rt.store;
    await this.prune();
    const token = randomBytes(12).toString('hex');
    const now = Date.now();
    const events = await feedback.claimEvents(BATCH, now, now + LEASE_MS, token);
    try {
      if (events.length === BATCH) this.again = true;
      await eachLimited(events, PARALLEL_EVENTS, (event) => (this.stopped ? Promise.resolve() : this.dispatch(event, token)));
      return events.length;
    } finally {
      if (events.length) await feedback.releaseEvents(token).catch((err: Error) => this.d.rt.log.warn({ err: err.message }, 'webhook claim not given back'));
    }
  }

  /** Who gets an event: a test event its one webhook (paused or not: the user asked for it), else every active subscriber. */
  private async recipientsOf(event: OutboxEvent): Promise<Webhook[]> {
    if (event.testOf === null) return this.d.rt.store.webhooks.subscribers(event.teamId, event.type);
    const hook = await this.d.rt.store.webhooks.get(event.testOf, event.teamId);
    return hook ? [hook] : [];
  }

  /**
   * Every subscriber gets its one attempt, then the event leaves the outbox whatever the outcomes, if the round
   * still holds it: a claim taken over (this round outlived its lease) leaves the event to its new holder.
   */
  private async dispatch(event: OutboxEvent, token: string): Promise<void> {
    const hooks = await this.recipientsOf(event);
    const message = hooks.some((h) => h.includeMessage) ? await this.messageOf(event) : null;
    await Promise.all(hooks.map((hook) => this.deliver(event, hook, hook.includeMessage ? message : null)));
    if (!(await this.d.rt.store.feedback.finishEvent(event.id, token))) this.d.rt.log.warn({ event: event.id }, 'webhook event taken over by another dispatcher');
  }

  private async messageOf(event: OutboxEvent): Promise<MessageSummary | null> {
    if (event.messageId === null) return null;
    const m = await this.d.rt.store.messages.get(event.messageId, event.teamId);
    if (!m) return null;
    return { id: m.id, subject: m.subject, from: m.fromEmail, to: m.to, sent_at: m.sentAt };
  }

  /** One attempt to one webhook, recorded whatever happens. */
  private async deliver(event: OutboxEvent, hook: Webhook, message: MessageSummary | null): Promise<void> {
    const started = Date.now();
    const outcome = await this.attempt(event, hook, message);
    const latencyMs = Date.now() - started;
    const { statusCode, error } = recorded(outcome);
    const { rt } = this.d;
    rt.log.info({ webhook: hook.id, event: event.id, type: event.type, status: statusCode, error, latency_ms: latencyMs }, 'webhook attempt');
    await rt.store.feedback
      .logDelivery({ webhookId: hook.id, teamId: event.teamId, eventId: event.id, eventType: event.type, url: hook.url, statusCode, error, latencyMs })
      .catch((err: Error) => rt.log.error({ err: err.message, webhook: hook.id, event: event.id }, 'could not record a webhook attempt'));
  }

  private async attempt(event: OutboxEvent, hook: Webhook, message: MessageSummary | null): Promise<PostOutcome> {
    let secret: string;
    try {
      secret = this.d.rt.secrets.open(hook.secretEnc);
    } catch (err) {
      return { kind: 'error', reason: `secret unreadable: ${(err as Error).message}` };
    }
    const body = eventBody(event, message);
    return safePost(this.d.resolver, {
      url: hook.url,
      headers: signedHeaders(secret, event.id, body),
      body,
      timeoutMs: this.timeoutMs,
      allowPrivate: this.d.rt.config.webhooks.allowPrivate,
      ...(this.ca ? { ca: this.ca } : {}),
    });
  }

  /** Drops delivery records older than feedback.webhookLogDays, at most once an hour. */
  private async prune(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    const cutoff = new Date(Date.now() - this.d.rt.config.feedback.webhookLogDays * 86_400_000).toISOString();
    const removed = await this.d.rt.store.feedback.pruneDeliveries(cutoff);
    if (removed) this.d.rt.log.info({ removed, cutoff }, 'old webhook delivery records pruned');
  }
}
