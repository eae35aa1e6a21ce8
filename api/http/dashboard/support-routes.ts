// The support namespace (tern-support/v1), Fluent Support's customer portal for Tern: an account's users open
// tickets on the team they act on and follow them; platform operators see every team's tickets, answer, close
// and re-open them. GET/POST /tickets, GET /tickets/{id} (with its responses), POST /tickets/{id}/responses,
// /close, /re-open, /assign (operators), /agent-feedback. The rules are the core's (core/support/); this file translates.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { signedInUser, type DashboardCaller } from './authentication.js';
import { corePage } from './mailer-paging.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { restUrl } from './index-document.js';
import { TICKET_FILTERS, TICKET_ORDER_BY, VOTES, type Attachment, type SupportPerson, type Ticket, type TicketResponse } from '../../../shared/domain/support.js';
import type { SupportParty } from '../../../shared/core/support/party.js';
import { CONTENT_MAX, TITLE_MAX } from '../../../shared/core/support/ticket-fields.js';

type Route = DashboardRoute<DashboardCaller>;

export const SUPPORT_NAMESPACE = 'tern-support/v1';

/** The caller as a party to tickets: an account's user is a customer on the team it acts on, an operator an agent. */
export function partyOf(caller: DashboardCaller | undefined): SupportParty {
  const known = signedInUser(caller);
  return known.kind === 'operator' ? { kind: 'agent', operator: known.user } : { kind: 'customer', user: known.user, team: known.acting };
}

/** Where an attachment is downloaded, on the origin the client addressed. */
export const attachmentUrl = (origin: string, a: Attachment): string => restUrl(origin, `/${SUPPORT_NAMESPACE}/tickets/${a.ticketId}/attachments/${a.id}`);

export const attachmentView = (origin: string) => (a: Attachment) => ({
  id: a.id,
  file_name: a.fileName,
  content_type: a.contentType,
  size: a.size,
  created_at: a.createdAt,
  ...(a.ticketId === null ? {} : { url: attachmentUrl(origin, a) }),
});

const personView = (p: SupportPerson | null) => (p === null ? null : { id: p.id, name: p.name, email: p.email });

export const ticketView = (t: Ticket) => ({
  id: t.id,
  title: t.title,
  content: t.content,
  status: t.status,
  product_id: t.product,
  client_priority: t.priority,
  tenant_id: t.teamId,
  customer: personView(t.openedBy),
  // By id and name only, as a response's author: an operator's email is not shown to customers.
  assigned_to: t.assignedTo === null ? null : { id: t.assignedTo.id, name: t.assignedTo.name },
  response_count: t.responseCount,
  closed_at: t.closedAt,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

/** A response as the portal reads it; an operator's email is not shown to customers, only its name. */
const responseView = (r: TicketResponse, attachments: readonly Attachment[], origin: string) => ({
  id: r.id,
  ticket_id: r.ticketId,
  person_type: r.authorKind,
  person: r.author === null ? null : { id: r.author.id, name: r.author.name },
  content: r.content,
  approval_status: r.feedback,
  attachments: attachments.filter((a) => a.responseId === r.id).map(attachmentView(origin)),
  created_at: r.createdAt,
});

/** The `assigned` filter as the core reads it: me, none, or an operator's id. */
export const assignedFilter = (value: string | undefined): number | 'me' | 'none' | undefined =>
  value === undefined || value === '' ? undefined : value === 'me' || value === 'none' ? value : Number(value);

const ticketId = { id: Type.Integer({ description: 'The ticket’s id.', minimum: 1 }) };
const attachmentIds = Type.Array(Type.Integer({ minimum: 1 }), {
  description: 'Files uploaded with POST /ticket_file_upload and not sent yet (their ids).',
  maxItems: 20,
  uniqueItems: true,
});

const tickets: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: "Tickets: an account user's team's, or every team's for an operator; filtered open, closed or all, searched, sorted",
      args: Type.Object({
        ...collectionArgs,
        filter_type: oneOf(TICKET_FILTERS, { description: 'open: not closed.', default: 'all' }),
        search: Type.Optional(Type.String({ description: 'Part of the title or the text, matched literally.', maxLength: 200 })),
        orderby: oneOf(TICKET_ORDER_BY, { description: 'Sort by this attribute.', default: 'updated_at' }),
        order: oneOf(['asc', 'desc'] as const, { description: 'Order sort attribute ascending or descending.', default: 'desc' }),
        tenant_id: Type.Optional(
          Type.Integer({ description: "An operator's list: only this account's or team's tickets (an account user's list is always its team's).", minimum: 1 }),
        ),
        assigned: Type.Optional(
          Type.String({
            description: "An operator's list: me (assigned to the caller), none (to nobody), or an operator's id.",
            pattern: '^(me|none|[1-9][0-9]{0,15})$',
          }),
        ),
      }),
      async handle({ ctx, user, params, request }) {
        const query = {
          ...corePage(params),
          filterType: params.filter_type,
          search: params.search || undefined,
          orderBy: params.orderby,
          order: params.order,
          teamId: params.tenant_id,
          assigned: assignedFilter(params.assigned),
        };
        const page = await ctx.core.supportTickets.list(partyOf(user), query);
        return pageReply(request, params, page.rows.map(ticketView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'Opens a ticket on the team acted on (an owner or admin of an account); products and priorities are GET /portal-config’s',
      args: Type.Object({
        title: Type.String({ description: 'What the ticket is about.', minLength: 1, maxLength: TITLE_MAX }),
        content: Type.String({ description: 'The question, in plain text.', minLength: 1, maxLength: CONTENT_MAX }),
        product_id: Type.Optional(Type.String({ description: 'One of the portal’s products.', maxLength: 40 })),
        client_priority: Type.Optional(Type.String({ description: 'One of the portal’s priorities (its default when left out).', maxLength: 40 })),
        attachments: Type.Optional(attachmentIds),
      }),
      async handle({ ctx, user, params, log, request }) {
        const input = {
          title: params.title,
          content: params.content,
          product: params.product_id,
          priority: params.client_priority,
          attachmentIds: params.attachments ?? [],
        };
        const ticket = valueOf(await ctx.core.supportTickets.open(partyOf(user), input, log));
        const location = restUrl(request.origin, `/${SUPPORT_NAMESPACE}/tickets/${ticket.id}`);
        return { status: 201, headers: { Location: location }, body: ticketView(ticket) };
      },
    }),
  ],
};

const ticket: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: 'A ticket with its responses, oldest first, and its attachments (another team’s ticket is not found)',
      args: Type.Object(ticketId),
      async handle({ ctx, user, params, request }) {
        const view = valueOf(await ctx.core.supportTickets.get(partyOf(user), params.id));
        const own = view.attachments.filter((a) => a.responseId === null).map(attachmentView(request.origin));
        const responses = view.responses.map((r) => responseView(r, view.attachments, request.origin));
        return { body: { ticket: { ...ticketView(view.ticket), attachments: own }, responses } };
      },
    }),
  ],
};

const responses: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets/{id}/responses',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'Adds a response to a ticket that is not closed; an operator’s makes it active and is mailed to the ticket’s opener',
      args: Type.Object({
        ...ticketId,
        content: Type.String({ description: 'The response, in plain text.', minLength: 1, maxLength: CONTENT_MAX }),
        attachments: Type.Optional(attachmentIds),
      }),
      async handle({ ctx, user, params, log, request }) {
        const made = valueOf(await ctx.core.supportTickets.respond(partyOf(user), params.id, { content: params.content, attachmentIds: params.attachments ?? [] }, log));
        const attachments = (await ctx.core.supportTickets.attachmentsOf(params.id)).filter((a) => a.responseId === made.id);
        return { status: 201, body: responseView(made, attachments, request.origin) };
      },
    }),
  ],
};

/** POST /tickets/{id}/close and /re-open: the ticket as it now is. */
function statusRoute(path: '/close' | '/re-open', summary: string): Route {
  return {
    namespace: SUPPORT_NAMESPACE,
    path: `/tickets/{id}${path}`,
    vars: { id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['POST'],
        permission: 'self',
        summary,
        args: Type.Object(ticketId),
        async handle({ ctx, user, params, log }) {
          const party = partyOf(user);
          const moved = path === '/close' ? ctx.core.supportTickets.close(party, params.id, log) : ctx.core.supportTickets.reopen(party, params.id, log);
          return { body: ticketView(valueOf(await moved)) };
        },
      }),
    ],
  };
}

const assign: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets/{id}/assign',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'Assigns a ticket to an operator, or to nobody (agent_id 0): operators only, in the audit log',
      args: Type.Object({
        ...ticketId,
        agent_id: Type.Integer({ description: 'The operator’s user id; 0 unassigns the ticket (WordPress’s “no user”).', minimum: 0 }),
      }),
      async handle({ ctx, user, params, log }) {
        const agentId = params.agent_id === 0 ? null : params.agent_id;
        return { body: ticketView(valueOf(await ctx.core.supportTickets.assign(partyOf(user), params.id, agentId, log))) };
      },
    }),
  ],
};

const feedback: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets/{id}/agent-feedback',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: "An account user's like or dislike of an operator's response on the ticket; the same vote again removes it",
      args: Type.Object({
        ...ticketId,
        response_id: Type.Integer({ description: 'The operator’s response voted on.', minimum: 1 }),
        approval_status: oneOf(VOTES, { description: 'like or dislike.' }),
      }),
      async handle({ ctx, user, params }) {
        const voted = valueOf(await ctx.core.supportTickets.vote(partyOf(user), params.id, params.response_id, params.approval_status));
        return { body: { ticket_id: params.id, response_id: voted.responseId, approval_status: voted.feedback } };
      },
    }),
  ],
};

export const supportTicketRoutes: readonly Route[] = [
  tickets,
  ticket,
  responses,
  statusRoute('/close', 'Closes a ticket (its team’s owner or admin, or an operator); a closed ticket takes no response until re-opened'),
  statusRoute('/re-open', 'Re-opens a closed ticket (active again)'),
  assign,
  feedback,
];
