// The message log of a team: pages of messages newest first, filtered by status, domain, date bounds and
// words, and one message with its recipients and every delivery attempt.
import type { Config } from '../config.js';
import type { DeliveryAttempt, LoggedRecipient, MessageLogDetail, NumberedLogEntry } from '../domain/message-log.js';
import type { OutboxEvent, WebhookDeliveryRecord } from '../domain/feedback.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { MessageStatus } from '../domain/queue-state.js';
import type { DomainManagement } from './domains.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export interface MessageLogDeps {
  config: Config;
  store: Store;
}

export interface LogFilters extends PageRequest {
  status?: MessageStatus;
  /** A domain of the team, by id or name; any other matches nothing. */
  domain?: string;
  /** ISO 8601 date-times; a date alone means its first (from) or last (to) millisecond, in UTC. */
  from?: string;
  to?: string;
  search?: string;
}

/** The platform operators' filters: every team's log, or one team's; a domain by id or name, of any team. */
export interface PlatformLogFilters extends LogFilters {
  teamId?: number;
}

export interface LogPage extends PageOf<NumberedLogEntry> {
  recipientCounts: ReadonlyMap<string, number>;
}

export interface LoggedMessage {
  message: MessageLogDetail;
  recipients: LoggedRecipient[];
  attempts: DeliveryAttempt[];
}

/** A message with what happened after it was sent: its bounces and complaints, and their webhook deliveries. */
export interface MessageHistory extends LoggedMessage {
  /** Bounces and complaints of its recipients, oldest first. */
  feedback: OutboxEvent[];
  /** Every attempt to deliver those events to the team's webhooks, oldest first. */
  webhookDeliveries: WebhookDeliveryRecord[];
}

/** No domain id looks like this: a filter that must match nothing. */
const NO_DOMAIN = '-';

export class MessageLog {
  constructor(
    private readonly d: MessageLogDeps,
    private readonly domains: DomainManagement,
  ) {}

  async list(team: Team, f: LogFilters): Promise<Managed<LogPage>> {
    const domainId = f.domain ? ((await this.domains.resolveFilter(team, f.domain)) ?? NO_DOMAIN) : undefined;
    return this.listOf(team.id, domainId, f);
  }

  /**
   * Every team's log (platform operators), or one team's: the same listing. A domain filter, of any team,
   * narrows to that domain's team; one no team has, or of another team than `teamId`, matches nothing.
   */
  async listAcrossTeams(f: PlatformLogFilters): Promise<Managed<LogPage>> {
    if (!f.domain) return this.listOf(f.teamId ?? null, undefined, f);
    const found = (await this.d.store.domains.get(f.domain)) ?? (await this.d.store.domains.findByName(f.domain));
    // No team's index holds it: an empty page, without reading every team's log for it.
    if (!found || (f.teamId !== undefined && found.teamId !== f.teamId)) return this.listOf(null, null, f);
    return this.listOf(found.teamId, found.id, f);
  }

  /** A message of any team by its number (the platform operators' log_id). */
  async getByLogId(logId: number): Promise<Managed<LoggedMessage>> {
    const message = await this.d.store.messages.getByLogId(logId);
    return message ? this.withDelivery(message) : notFound('message', 'Message not found');
  }

  /** A page of a team's log (null: every team's); a null domain matches nothing. */
  private async listOf(teamId: number | null, domainId: string | null | undefined, f: LogFilters): Promise<Managed<LogPage>> {
    const from = dateBound(f.from, false);
    const to = dateBound(f.to, true);
    if (from === null) return refuse({ kind: 'invalid_field', field: 'from', message: 'from must be an ISO 8601 date or date-time' });
    if (to === null) return refuse({ kind: 'invalid_field', field: 'to', message: 'to must be an ISO 8601 date or date-time' });
    if (domainId === null) return done({ rows: [], total: 0, recipientCounts: new Map() });
    const page = await this.d.store.messages.list(teamId, {
      page: f.page,
      perPage: f.perPage,
      status: f.status,
      domainId,
      from,
      to,
      search: f.search || undefined,
      // A search counts its matches up to the paging depth: no page beyond it can be asked for anyway.
      searchCountLimit: this.d.config.limits.pagingDepth,
    });
    const recipientCounts = await this.d.store.messages.recipientCounts(page.rows.map((r) => r.id));
    return done({ ...page, recipientCounts });
  }

  async get(team: Team, id: string): Promise<Managed<LoggedMessage>> {
    const message = await this.d.store.messages.get(id, team.id);
    return message ? this.withDelivery(message) : notFound('message', 'Message not found');
  }

  /** One message of the team with its feedback events and their webhook deliveries (the dashboard's message page). */
  async history(team: Team, id: string): Promise<Managed<MessageHistory>> {
    const found = await this.get(team, id);
    if (!found.ok) return found;
    const feedback = await this.d.store.feedback.eventsOf(id);
    const webhookDeliveries = await this.d.store.feedback.deliveriesOfEvents(
      team.id,
      feedback.map((e) => e.id),
    );
    return done({ ...found.value, feedback, webhookDeliveries });
  }

  private async withDelivery(message: MessageLogDetail): Promise<Managed<LoggedMessage>> {
    const [recipients, attempts] = await Promise.all([this.d.store.messages.recipientsOf(message.id), this.d.store.messages.attemptsOf(message.id)]);
    return done({ message, recipients, attempts });
  }
}

/** The first and last instants whose toISOString() is `YYYY-…Z` with four year digits, as created_at is. */
const EARLIEST = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** A bound as created_at compares (ISO 8601 UTC with milliseconds); undefined when not given, null when not a date. */
export function dateBound(value: string | undefined, endOfDay: boolean): string | undefined | null {
  if (!value) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = Date.parse(dateOnly ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value);
  if (Number.isNaN(time)) return null;
  // Bounds compare with created_at as text: a year past 9999 would print as "+010000-…" and sort before every date.
  return new Date(Math.min(Math.max(time, EARLIEST), LATEST)).toISOString();
}
