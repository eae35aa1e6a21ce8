// The support namespace's portal data: GET /portal-config (what the ticket form asks), GET /search-doc (docs
// suggested while a user writes, `[{title, link}]`), POST /docs (operators add one), GET /info/widgets (the
// account's context beside a ticket) and GET/POST /api_settings (operators: where tickets go). The rules are
// core/support/'s; this file translates.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { restUrl } from './index-document.js';
import { partyOf, SUPPORT_NAMESPACE } from './support-routes.js';
import { CONTENT_MAX, TITLE_MAX } from '../../../shared/core/support/ticket-fields.js';
import { DOC_TITLE_MAX, type PortalConfig } from '../../../shared/core/support/portal.js';
import type { AccountWidgets } from '../../../shared/core/support/widgets.js';
import type { SupportSettings } from '../../../shared/domain/support.js';
import { WEBHOOK_URL_MAX } from '../../../shared/webhook-url.js';

type Route = DashboardRoute<DashboardCaller>;

/** The form as the portal draws it: each field, whether it is required, and its choices or limits. */
const portalView = (c: PortalConfig, origin: string) => ({
  products: c.products,
  priorities: c.priorities,
  default_priority: c.defaultPriority,
  attachments: {
    max_bytes: c.attachments.maxBytes,
    types: c.attachments.types,
    per_message: c.attachments.perMessage,
    upload_url: restUrl(origin, `/${SUPPORT_NAMESPACE}/ticket_file_upload`),
  },
  form: [
    { name: 'title', type: 'text', required: true, max_length: TITLE_MAX },
    { name: 'content', type: 'textarea', required: true, max_length: CONTENT_MAX },
    { name: 'product_id', type: 'select', required: false, choices: c.products.map((p) => p.id) },
    { name: 'client_priority', type: 'select', required: false, choices: c.priorities.map((p) => p.id), default: c.defaultPriority },
    { name: 'attachments', type: 'files', required: false, max_items: c.attachments.perMessage },
  ],
});

const widgetsView = (w: AccountWidgets) => ({
  tenant: { id: w.team.id, name: w.team.name, kind: w.team.parentId === null ? 'account' : 'team', status: w.team.status, plan: w.team.planType },
  credits: { balance: w.balance },
  sending: {
    window_days: w.windowDays,
    volume: w.volume,
    bounced: w.bounced,
    complained: w.complained,
    bounce_rate: w.bounceRate,
    complaint_rate: w.complaintRate,
  },
  suppressions: { total: w.suppressions },
  queue: { in_flight: w.queued },
  tickets: { open: w.openTickets },
});

const settingsView = (s: SupportSettings) => ({
  storage: 'tern',
  forward_url: s.forwardUrl,
  // New tickets and responses are forwarded while a URL is set (the secret itself is answered once, by the POST).
  forwarding_active: s.forwardUrl !== null,
  updated_at: s.updatedAt,
});

const portalConfig: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/portal-config',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: 'What the ticket form asks: the products and priorities a ticket may name, and the files it may carry',
      args: Type.Object({}),
      handle: ({ ctx, user, request }) => {
        partyOf(user);
        return Promise.resolve({ body: portalView(ctx.core.supportPortal.config(), request.origin) });
      },
    }),
  ],
};

const searchDoc: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/search-doc',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: 'Docs whose title holds the search, suggested while a ticket is written: [{title, link}], at most 10, newest first',
      args: Type.Object({ search: Type.String({ description: 'Part of a doc’s title (the ticket’s title as it is typed).', maxLength: 200 }) }),
      async handle({ ctx, user, params }) {
        partyOf(user);
        const docs = await ctx.core.supportPortal.searchDocs(params.search);
        return { body: docs.map((d) => ({ title: d.title, link: d.link })) };
      },
    }),
  ],
};

const docs: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/docs',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Adds a doc the portal suggests (operators): a title and an https link',
      args: Type.Object({
        title: Type.String({ description: 'What the doc is about, as users search it.', minLength: 1, maxLength: DOC_TITLE_MAX }),
        link: Type.String({ description: 'Where the doc is read: https, or http on port 80, 443 or 8080.', minLength: 1, maxLength: WEBHOOK_URL_MAX }),
      }),
      async handle({ ctx, user, params, log }) {
        const doc = valueOf(await ctx.core.supportPortal.addDoc(operatorOf(user).user, params.title, params.link, log));
        return { status: 201, body: { id: doc.id, title: doc.title, link: doc.link, created_at: doc.createdAt } };
      },
    }),
  ],
};

const widgets: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/info/widgets',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary:
        "The account's context beside a ticket: plan, credits, sending over the reputation window with its bounce and complaint rates, suppressions, queue, open tickets (an operator names the ticket)",
      args: Type.Object({ ticket_id: Type.Optional(Type.Integer({ description: 'The ticket whose account to show (required for an operator).', minimum: 1 })) }),
      async handle({ ctx, user, params }) {
        return { body: widgetsView(valueOf(await ctx.core.supportWidgets.of(partyOf(user), params.ticket_id))) };
      },
    }),
  ],
};

const apiSettings: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/api_settings',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Where tickets go (operators): kept in Tern, and the helpdesk URL they are forwarded to, if any (never the secret)',
      args: Type.Object({}),
      async handle({ ctx, user }) {
        operatorOf(user);
        return { body: settingsView(await ctx.core.supportPortal.settings()) };
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary:
        'Sets the helpdesk URL new tickets and responses are forwarded to, signed (operators; an empty string: none); audited. A URL issues a new signing secret, answered once as forward_secret',
      args: Type.Object({
        forward_url: Type.String({ description: 'https, or http on port 80, 443 or 8080; an empty string keeps tickets in Tern only.', maxLength: WEBHOOK_URL_MAX }),
      }),
      async handle({ ctx, user, params, log }) {
        const saved = valueOf(await ctx.core.supportPortal.saveSettings(operatorOf(user).user, params.forward_url === '' ? null : params.forward_url, log));
        return { body: { ...settingsView(saved.settings), forward_secret: saved.secret } };
      },
    }),
  ],
};

export const supportPortalRoutes: readonly Route[] = [portalConfig, searchDoc, docs, widgets, apiSettings];
