// Operators steering the queue, as a Postfix admin does with mailq, qshape, postqueue -f and postsuper -h/-H/-d:
// the rules of a selection (which recipients, and that a change names some unless it says all), who did it, and
// its audit entry. The CLI (the host's sysadmin) and the platform-admin HTTP routes both come through here; the
// queue module carries the moves out.
import type { Store } from '../store/index.js';
import type { DisposableDomains } from '../domain/screening.js';
import type { Queue, ChangedRecipient, DestinationSummary, QueuedRecipient, QueueSelector, SuppressedRecipient } from '../queue/queue.js';
import { IN_QUEUE, REQUEUEABLE, type QueueOperation, type RecipientState } from '../domain/queue-state.js';
import type { AuditAction } from '../domain/audit-log.js';
import { auditedBy, type AuditActor } from './audit-log.js';
import type { NewAuditEntry } from '../store/audit-log.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';
import { reasonProblem } from './admin/teams.js';

export type { ChangedRecipient, DestinationSummary, QueuedRecipient, SuppressedRecipient } from '../queue/queue.js';

/** Who steers the queue: a platform operator over HTTP, or the host's sysadmin through the CLI. */
export type QueueActor = AuditActor;

/** A selection as an interface receives it; every field given narrows it. */
export interface QueueSelection {
  teamId?: number;
  /** A destination domain; domain names are matched without regard to case. */
  domain?: string;
  state?: string;
  /** An age such as 90s, 15m, 1h or 2d: recipients queued longer ago than that. */
  olderThan?: string;
  messageId?: string;
  /** A change with no other selector applies to the whole queue only when it says so. */
  all?: boolean;
}

/** What a change did: how many recipients it changed, and which. */
export interface QueueChange {
  changed: number;
  recipients: ChangedRecipient[];
}

/** A purge's change, with the messages it finished and the soft bounces it reported. */
export interface PurgeChange extends QueueChange {
  finished: number;
  notified: number;
}

/** A requeue's change, with the recipients it left alone because their address is suppressed or disposable. */
export interface RequeueChange extends QueueChange {
  suppressed: SuppressedRecipient[];
  disposable: SuppressedRecipient[];
}

/** The most recipients a list shows at once, and its default. */
export const LIST_MAX = 10_000;
export const LIST_DEFAULT = 100;

const AGE = /^([1-9]\d{0,6})([smhd])$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export class QueueControl {
  /** `disposable`: the intake's filter; a requeue sends again only what the intake would send. */
  constructor(private readonly d: { store: Store; queue: Queue; disposable: DisposableDomains; now?: () => number }) {}

  async list(selection: QueueSelection, limit: number = LIST_DEFAULT): Promise<Managed<QueuedRecipient[]>> {
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX)
      return refuse({ kind: 'invalid_field', field: 'limit', message: `limit must be an integer from 1 to ${LIST_MAX}` });
    const selector = await this.selectorOf(selection);
    return selector.ok ? done(await this.d.queue.listQueued(selector.value, limit)) : selector;
  }

  async summary(selection: QueueSelection): Promise<Managed<DestinationSummary[]>> {
    const selector = await this.selectorOf(selection);
    return selector.ok ? done(await this.d.queue.summarize(selector.value)) : selector;
  }

  hold(actor: QueueActor, selection: QueueSelection, reason = ''): Promise<Managed<QueueChange>> {
    return changeOf(this.change(actor, 'hold', selection, reason, (selector, audit) => this.d.queue.hold(selector, audit)));
  }

  release(actor: QueueActor, selection: QueueSelection, reason = ''): Promise<Managed<QueueChange>> {
    return changeOf(this.change(actor, 'release', selection, reason, (selector, audit) => this.d.queue.releaseHeld(selector, audit)));
  }

  flush(actor: QueueActor, selection: QueueSelection, reason = ''): Promise<Managed<QueueChange>> {
    return changeOf(this.change(actor, 'flush', selection, reason, (selector, audit) => this.d.queue.flush(selector, audit)));
  }

  /** A purge needs a reason: it is what the recipients' log and, with `notify`, the webhooks say. */
  async purge(actor: QueueActor, selection: QueueSelection, reason: string, notify: boolean): Promise<Managed<PurgeChange>> {
    const bad = reasonProblem(reason);
    if (bad) return bad;
    const purged = await this.change(actor, 'purge', selection, reason, (selector, audit) =>
      this.d.queue.purge(selector, `purged by an operator: ${reason}`, notify, audit),
    );
    if (!purged.ok) return purged;
    const { purged: recipients, finished, bounces } = purged.value;
    return done({ changed: recipients.length, recipients, finished: finished.length, notified: bounces.length });
  }

  /**
   * Sends bounced or failed recipients again, as new attempts paid for again, while their message's body is kept
   * (config/retry.json requeueWindowS); a suppressed address is never sent again. A requeue that chose only
   * suppressed addresses is refused, naming them; one the team's credits cannot pay for changes nothing.
   */
  async requeue(actor: QueueActor, selection: QueueSelection, reason = ''): Promise<Managed<RequeueChange>> {
    const made = await this.change(actor, 'requeue', selection, reason, (selector, audit) => this.d.queue.requeue(selector, audit, this.d.disposable), REQUEUEABLE);
    if (!made.ok) return made;
    const outcome = made.value;
    if (!outcome.ok) return refuse({ kind: 'insufficient_credits', balance: outcome.balance, field: 'all' });
    if (outcome.requeued.length === 0 && outcome.suppressed.length > 0) {
      return refuse({ kind: 'suppressed_addresses', emails: outcome.suppressed.map((s) => s.email) });
    }
    return done({ changed: outcome.requeued.length, recipients: outcome.requeued, suppressed: outcome.suppressed, disposable: outcome.disposable });
  }

  /** A change names some recipients (or says all), its reason is one line, its selection holds; then it is made and audited. */
  private async change<T>(
    actor: QueueActor,
    operation: QueueOperation,
    selection: QueueSelection,
    reason: string,
    move: (selector: QueueSelector, audit: (changed: number) => NewAuditEntry) => Promise<T>,
    states: readonly RecipientState[] = IN_QUEUE,
  ): Promise<Managed<T>> {
    const named = Object.keys(described(selection)).length > 0;
    if (!named && selection.all !== true) {
      return refuse({
        kind: 'invalid_field',
        field: 'all',
        message: `${operation} needs a selector (team, domain, state, older than, message), or all to apply to the whole queue`,
      });
    }
    const bad = reason === '' ? undefined : reasonProblem(reason);
    if (bad) return bad;
    const selector = await this.selectorOf(selection, states);
    if (!selector.ok) return selector;
    const at = new Date(this.now()).toISOString();
    return done(await move(selector.value, (changed) => auditOf(actor, operation, selection, changed, reason, at)));
  }

  /** A selection checked and turned into the store's selector; an unknown team is refused, not an empty answer. */
  private async selectorOf(s: QueueSelection, states: readonly RecipientState[] = IN_QUEUE): Promise<Managed<QueueSelector>> {
    const selector: QueueSelector = {};
    if (s.teamId !== undefined) {
      if (!(await this.d.store.teams.get(s.teamId))) return notFound('team', 'Team not found', 'team');
      selector.teamId = s.teamId;
    }
    if (s.domain !== undefined) {
      if (!/^[^\s@/]{1,253}$/u.test(s.domain)) return refuse({ kind: 'invalid_field', field: 'domain', message: 'domain must be a domain name' });
      selector.domain = s.domain.toLowerCase();
    }
    if (s.state !== undefined) {
      if (!(states as readonly string[]).includes(s.state))
        return refuse({ kind: 'invalid_field', field: 'state', message: `state must be one of ${states.join(', ')}` });
      selector.states = [s.state as RecipientState];
    }
    if (s.olderThan !== undefined) {
      const age = AGE.exec(s.olderThan);
      if (!age) return refuse({ kind: 'invalid_field', field: 'older_than', message: 'older_than must be a whole number of s, m, h or d, such as 90s, 15m, 1h or 2d' });
      selector.queuedBefore = this.now() - Number(age[1]) * UNIT_MS[age[2]!]!;
    }
    if (s.messageId !== undefined) {
      if (!/^\S{1,200}$/u.test(s.messageId)) return refuse({ kind: 'invalid_field', field: 'message_id', message: 'message_id must be a message id' });
      selector.messageId = s.messageId;
    }
    return done(selector);
  }

  private now(): number {
    return (this.d.now ?? Date.now)();
  }
}

async function changeOf(made: Promise<Managed<ChangedRecipient[]>>): Promise<Managed<QueueChange>> {
  const m = await made;
  return m.ok ? done({ changed: m.value.length, recipients: m.value }) : m;
}

/** The selection as the audit log and the CLI name it: only the fields given. */
function described(s: QueueSelection): Record<string, string | number> {
  const fields: Record<string, string | number | undefined> = {
    team: s.teamId,
    domain: s.domain?.toLowerCase(),
    state: s.state,
    older_than: s.olderThan,
    message: s.messageId,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string | number] => e[1] !== undefined));
}

/** `team=3 domain=example.net`, or `all`: the target id of a queue action in the audit log. */
export function selectionText(s: QueueSelection): string {
  const text = Object.entries(described(s))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return text || 'all';
}

function auditOf(actor: QueueActor, operation: QueueOperation, selection: QueueSelection, changed: number, reason: string, at: string): NewAuditEntry {
  const action: AuditAction = `queue.${operation}`;
  return {
    ...auditedBy(actor),
    action,
    target: { kind: 'queue', id: selectionText(selection) },
    before: null,
    after: { selector: described(selection), changed },
    reason,
    at,
  };
}
