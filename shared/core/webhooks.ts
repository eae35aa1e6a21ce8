// A team's webhooks: where its bounce and complaint events are delivered, each signed with a secret made
// here (Standard Webhooks), shown once and stored sealed; and the record of every delivery attempt.
import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secret-box.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import { WEBHOOK_EVENTS, type Webhook } from '../domain/webhook.js';
import type { WebhookChange, WebhookFields } from '../store/webhooks.js';

/** A webhook's fields as the interfaces give them. */
export type { WebhookFields };
import { checkWebhookUrl } from '../webhook-url.js';
import { createResolver } from '../dns.js';
import { resolveTarget } from '../public-address.js';
import type { OutboxEvent, WebhookDeliveryRecord } from '../domain/feedback.js';
import { dateBound } from './message-log.js';
import { done, invalidFields, notFound, refuse, type FieldProblem, type Managed } from './management-refusals.js';

/** The address a test event is about (example.com is reserved for examples: it is nobody's). */
export const TEST_EVENT_ADDRESS = 'test@example.com';

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

export const WEBHOOK_TITLE_MAX = 100;

/** What the fields given break, every one (a title too long, no event, an unknown one, one given twice, a URL refused). */
function fieldProblems(f: WebhookChange): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (f.title !== undefined && f.title.length > WEBHOOK_TITLE_MAX) problems.push({ field: 'title', message: `title must have at most ${WEBHOOK_TITLE_MAX} characters` });
  if (f.events !== undefined) {
    const events = eventProblem(f.events);
    if (events) problems.push({ field: 'events', message: events });
  }
  return problems;
}

function eventProblem(events: readonly string[]): string | undefined {
  if (events.length === 0) return 'events must name at least one event';
  if (events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))) return `events must be among: ${WEBHOOK_EVENTS.join(', ')}`;
  if (new Set(events).size !== events.length) return 'events must not name an event twice';
  return undefined;
}

/**
 * The change checked whole, so a form can say at once all that is wrong with it: the URL (when given) as its
 * own refusal when it is the only problem (invalid_url, as the REST routes answer it), else among the fields.
 */
function checkedChange(f: WebhookChange): Managed<string | undefined> {
  const problems = fieldProblems(f);
  const url = f.url === undefined ? undefined : checkWebhookUrl(f.url);
  const urlRefusal = url && !url.ok ? `Invalid webhook url: ${url.reason}` : undefined;
  const [first, ...more] = problems;
  if (first) return invalidFields([first, ...more, ...(urlRefusal ? [{ field: 'url', message: urlRefusal }] : [])]);
  if (urlRefusal) return refuse({ kind: 'invalid_url', message: urlRefusal });
  return done(url?.ok ? url.url : undefined);
}

export class Webhooks {
  private readonly resolver: Resolver;

  constructor(private readonly d: WebhookDeps) {
    this.resolver = createResolver(d.config.dnsServers);
  }

  /**
   * A url already checked as given (checkedChange) with its host resolved and refused when any address is not
   * public, by the rule each delivery applies again (the name may change after). Unless webhooks.allowPrivate
   * (tests, closed networks), as at delivery. A host that does not resolve now (no record yet, a resolver
   * failing) is accepted: nothing can be delivered to it until it does, and then delivery checks it.
   */
  private async publicUrl(url: string): Promise<Managed<string>> {
    if (this.d.config.webhooks.allowPrivate) return done(url);
    const host = new URL(url).hostname;
    const resolution = await resolveTarget(this.resolver, host, false).catch(() => undefined);
    if (resolution && !resolution.ok) {
      return refuse({ kind: 'invalid_url', message: `Invalid webhook url: ${resolution.reason.replace(/^refused: /, 'the url host ')}, not a public address` });
    }
    return done(url);
  }

  list(team: Team, page: PageRequest): Promise<PageOf<Webhook>> {
    return this.d.store.webhooks.list(team.id, page);
  }

  /** One of the team's webhooks (another team's is not found). */
  async get(team: Team, id: number): Promise<Managed<Webhook>> {
    const hook = await this.d.store.webhooks.get(id, team.id);
    return hook ? done(hook) : notFound('webhook', 'Webhook not found');
  }

  async create(team: Team, fields: WebhookFields, log: Logger): Promise<Managed<CreatedWebhook>> {
    const checked = checkedChange(fields);
    if (!checked.ok) return checked;
    const url = await this.publicUrl(checked.value!);
    if (!url.ok) return url;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const limit = this.d.config.limits.webhooksPerTeam;
    const created = await this.d.store.webhooks.create(team.id, { ...fields, url: url.value }, this.d.secrets.seal(secret), limit);
    if (created === 'limit_reached') return refuse({ kind: 'limit_reached', what: 'webhooks', limit });
    log.info({ webhook: created.id, team: team.id }, 'webhook created');
    return done({ webhook: created, secret });
  }

  async update(team: Team, id: number, change: WebhookChange, log: Logger): Promise<Managed<Webhook>> {
    const checked = checkedChange(change);
    if (!checked.ok) return checked;
    let url = checked.value;
    if (url !== undefined) {
      const reachable = await this.publicUrl(url);
      if (!reachable.ok) return reachable;
      url = reachable.value;
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

  /**
   * Puts a signed sample in the outbox for this webhook alone: the dispatcher delivers it as it delivers a real
   * event (same signer, one attempt, recorded in the delivery log), within its poll interval. The sample is of
   * the webhook's first event type, marked `test: true`, about no message.
   */
  async sendTest(team: Team, id: number, log: Logger): Promise<Managed<OutboxEvent>> {
    const hook = await this.d.store.webhooks.get(id, team.id);
    if (!hook) return notFound('webhook', 'Webhook not found');
    const type = hook.events[0] ?? 'bounced';
    const event = await this.d.store.feedback.addTestEvent({
      teamId: team.id,
      webhookId: hook.id,
      type,
      email: TEST_EVENT_ADDRESS,
      isHardBounce: type === 'bounced' ? true : null,
      reason: 'A test event sent from the dashboard: no message was involved.',
    });
    log.info({ webhook: id, team: team.id, event: event.id }, 'webhook test event queued');
    return done(event);
  }

  async remove(team: Team, id: number, log: Logger): Promise<Managed<void>> {
    if (!(await this.d.store.webhooks.remove(id, team.id))) return notFound('webhook', 'Webhook not found');
    log.info({ webhook: id, team: team.id }, 'webhook removed');
    return done(undefined);
  }
}
