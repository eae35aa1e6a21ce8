// Support tickets as the portal and the operators use them: a customer opens a ticket on the team it acts on and
// follows it; an agent (operator) sees every team's, answers, closes and re-opens; a customer likes or dislikes
// an agent's response (the same vote again removes it). The store decides every race in its write; an agent's
// change is committed with its audit entry. An agent's response is mailed to the ticket's opener (best effort).
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { NewAuditEntry } from '../../store/audit-log.js';
import type { TicketMiss } from '../../store/support.js';
import type { Attachment, Ticket, TicketFilterType, TicketOrderBy, TicketResponse, Vote } from '../../domain/support.js';
import type { AuditAction } from '../../domain/audit-log.js';
import { auditEntry } from '../audit-log.js';
import { done, refuse, notFound, type Managed } from '../management-refusals.js';
import { customerOnly, mayChange, teamScopeOf, ticketNotFound, userIdOf, visibleTo, type SupportParty } from './party.js';
import { checkResponse, checkTicket, type TicketInput } from './ticket-fields.js';
import type { ResponseMail } from './response-mail.js';

export interface TicketQuery extends PageRequest {
  filterType: TicketFilterType;
  search?: string;
  orderBy: TicketOrderBy;
  order: 'asc' | 'desc';
  /** An agent's list of one team only; a customer's is always its team's. */
  teamId?: number;
  /** An agent's list of the tickets assigned to the agent itself, to one operator, or to none. */
  assigned?: number | 'me' | 'none';
}

export interface TicketView {
  ticket: Ticket;
  responses: TicketResponse[];
  attachments: Attachment[];
}

export interface ResponseInput {
  content: string;
  attachmentIds: readonly number[];
}

export interface SupportDeps {
  store: Store;
  config: Config;
}

/** A store miss as the refusal the interfaces answer. */
function missed<T>(miss: TicketMiss): Managed<T> {
  switch (miss) {
    case 'not_found':
      return ticketNotFound();
    case 'closed':
      return refuse({ kind: 'ticket_state', closed: true, message: 'The ticket is closed: re-open it first.' });
    case 'not_closed':
      return refuse({ kind: 'ticket_state', closed: false, message: 'The ticket is not closed.' });
    case 'attachment_unknown':
      return refuse({ kind: 'invalid_field', field: 'attachments', message: 'attachments must name files you uploaded and have not sent yet' });
  }
}

const isMiss = (value: unknown): value is TicketMiss => typeof value === 'string';

/** The audit entry of an agent's action on a ticket; none for a customer's (the ticket itself records it). */
function agentAudit(party: SupportParty, action: AuditAction, ticketId: number) {
  if (party.kind !== 'agent') return null;
  return (before: Record<string, string | number> | null, after: Record<string, string | number>): NewAuditEntry =>
    auditEntry(party.operator, { action, target: { kind: 'ticket', id: String(ticketId) }, before, after, reason: '' }, new Date().toISOString());
}

const statusSnapshot = (t: Ticket) => ({ status: t.status, tenant_id: t.teamId });

export class SupportTickets {
  constructor(
    private readonly d: SupportDeps,
    private readonly mail: ResponseMail,
  ) {}

  list(party: SupportParty, q: TicketQuery): Promise<PageOf<Ticket>> {
    const filter = {
      teamId: teamScopeOf(party) ?? q.teamId,
      status: q.filterType,
      search: q.search,
      orderBy: q.orderBy,
      order: q.order,
      assigned: party.kind !== 'agent' ? undefined : q.assigned === 'me' ? party.operator.id : q.assigned,
    };
    return this.d.store.support.listTickets(filter, { page: q.page, perPage: q.perPage });
  }

  /** The ticket the party may see, or not found. */
  async find(party: SupportParty, id: number): Promise<Managed<Ticket>> {
    const ticket = await this.d.store.support.getTicket(id, teamScopeOf(party));
    return visibleTo(party, ticket) ? done(ticket) : ticketNotFound();
  }

  /** A ticket's attachments (the caller has found the ticket). */
  attachmentsOf(ticketId: number): Promise<Attachment[]> {
    return this.d.store.support.attachmentsOf(ticketId);
  }

  async get(party: SupportParty, id: number): Promise<Managed<TicketView>> {
    const found = await this.find(party, id);
    if (!found.ok) return found;
    const [responses, attachments] = await Promise.all([this.d.store.support.responsesOf(id), this.d.store.support.attachmentsOf(id)]);
    return done({ ticket: found.value, responses, attachments });
  }

  async open(party: SupportParty, input: TicketInput, log: Logger): Promise<Managed<Ticket>> {
    const customer = customerOnly(party, 'opening a ticket');
    if (!customer.ok) return customer;
    const checked = checkTicket(this.d.config, input);
    if (!checked.ok) return checked;
    const { team, user } = customer.value;
    const forward = await this.forwarding();
    const made = await this.d.store.support.openTicket({ teamId: team.id, openedBy: user.id, ...checked.value, forward });
    if (isMiss(made)) return missed(made);
    log.info({ ticket: made.id, team: team.id }, 'support ticket opened');
    return done(made);
  }

  async respond(party: SupportParty, ticketId: number, input: ResponseInput, log: Logger): Promise<Managed<TicketResponse>> {
    const allowed = mayChange(party);
    if (!allowed.ok) return allowed;
    const checked = checkResponse(this.d.config, input.content, input.attachmentIds);
    if (!checked.ok) return checked;
    const audit = agentAudit(party, 'ticket.respond', ticketId);
    const authorKind = party.kind === 'agent' ? ('agent' as const) : ('customer' as const);
    const forward = await this.forwarding();
    const made = await this.d.store.support.respond(
      { ticketId, teamId: teamScopeOf(party), authorId: userIdOf(party), authorKind, content: input.content, attachmentIds: input.attachmentIds, forward },
      audit && ((r) => audit(null, { response_id: r.id })),
    );
    if (isMiss(made)) return missed(made);
    log.info({ ticket: ticketId, response: made.id, by: authorKind }, 'support ticket answered');
    if (authorKind === 'agent') await this.notifyOpener(ticketId, made, log);
    return done(made);
  }

  /** Whether new tickets and responses are forwarded (a URL is set): the store writes the outbox row when told. */
  private async forwarding(): Promise<boolean> {
    return (await this.d.store.support.settings()).forwardUrl !== null;
  }

  /** Mails the ticket's opener an agent's response; a failure is logged, never the response's. */
  private async notifyOpener(ticketId: number, response: TicketResponse, log: Logger): Promise<void> {
    const ticket = await this.d.store.support.getTicket(ticketId);
    if (!ticket?.openedBy) return;
    const sent = await this.mail.send(ticket, response, log);
    if (!sent) log.warn({ ticket: ticketId }, 'the response was not mailed to the ticket opener');
  }

  close(party: SupportParty, id: number, log: Logger): Promise<Managed<Ticket>> {
    return this.move(party, id, 'closed', log);
  }

  reopen(party: SupportParty, id: number, log: Logger): Promise<Managed<Ticket>> {
    return this.move(party, id, 'active', log);
  }

  private async move(party: SupportParty, id: number, to: 'closed' | 'active', log: Logger): Promise<Managed<Ticket>> {
    const allowed = mayChange(party);
    if (!allowed.ok) return allowed;
    const audit = agentAudit(party, to === 'closed' ? 'ticket.close' : 'ticket.reopen', id);
    const moved = await this.d.store.support.moveTicket(id, teamScopeOf(party), to, userIdOf(party), audit && ((b, a) => audit(statusSnapshot(b), statusSnapshot(a))));
    if (isMiss(moved)) return missed(moved);
    log.info({ ticket: id, status: to }, 'support ticket moved');
    return done(moved);
  }

  /**
   * Assigns a ticket to an operator (`agentId`), or to nobody (null): operators only. Another team's ticket is
   * not found (as for every change); an id that is not an operator's is refused naming `agent_id`, decided in
   * the write. Audited with the assignee before and after.
   */
  async assign(party: SupportParty, ticketId: number, agentId: number | null, log: Logger): Promise<Managed<Ticket>> {
    const found = await this.find(party, ticketId);
    if (!found.ok) return found;
    if (party.kind !== 'agent') return refuse({ kind: 'forbidden', message: 'Sorry, you are not allowed to do that: operators assign tickets.' });
    const at = new Date().toISOString();
    const assigned = await this.d.store.support.assignTicket(ticketId, agentId, (before, after) =>
      auditEntry(
        party.operator,
        {
          action: 'ticket.assign',
          target: { kind: 'ticket', id: String(ticketId) },
          before: { assigned_to: before.assignedTo?.id ?? null, tenant_id: before.teamId },
          after: { assigned_to: after.assignedTo?.id ?? null, tenant_id: after.teamId },
          reason: '',
        },
        at,
      ),
    );
    if (assigned === 'not_found') return ticketNotFound();
    if (assigned === 'not_operator') return refuse({ kind: 'invalid_field', field: 'agent_id', message: 'agent_id must be the id of an operator' });
    log.info({ ticket: ticketId, agent: agentId, by: party.operator.id }, 'support ticket assigned');
    return done(assigned);
  }

  /** A customer's vote on an agent's response of one of its team's tickets; the vote now held (null: removed). */
  async vote(party: SupportParty, ticketId: number, responseId: number, vote: Vote): Promise<Managed<{ responseId: number; feedback: Vote | null }>> {
    const customer = customerOnly(party, 'voting on a response');
    if (!customer.ok) return customer;
    const found = await this.find(party, ticketId);
    if (!found.ok) return found;
    // A ticket never changes team, so the vote written after this check is on a ticket the customer may see.
    const voted = await this.d.store.support.vote(ticketId, responseId, vote);
    if (voted === 'not_found') return notFound('support_response', "Invalid response ID: not an operator's response on this ticket.", 'response_id');
    return done({ responseId, feedback: voted.feedback });
  }
}
