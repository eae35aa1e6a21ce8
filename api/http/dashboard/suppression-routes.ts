// The mailer's suppression list: GET /suppressions (the /v2 filters, /v2's items), POST /suppressions (an address
// added by hand, as the Suppressions page adds one) and GET /suppressions/export,
// the same filters as CSV (RFC 4180, through csv-stringify, formulas neutralised) streamed from the store a batch at a time, so an
// export of any size holds one batch in memory. Translation only.
import { Type } from '@sinclair/typebox';
import { endpoint, StreamedBody, type DashboardRoute } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { corePage } from './mailer-paging.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { csvOf, suppressionItem } from '../../presenters/suppressions.js';
import { SUPPRESSION_STATUSES } from '../../../shared/domain/suppression.js';
import type { SuppressionFilter } from '../../../shared/core/suppressions.js';

type Route = DashboardRoute<DashboardCaller>;

const filterArgs = {
  search: Type.Optional(Type.String({ description: 'Part of the address, matched literally.', maxLength: 254 })),
  status: Type.Optional(oneOf(SUPPRESSION_STATUSES, { description: 'Only entries of this status.' })),
};

const suppressions: Route = {
  namespace: 'tern/v2',
  path: '/suppressions',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's suppressed addresses, newest first",
      args: Type.Object({ ...collectionArgs, ...filterArgs }),
      async handle({ ctx, user, params, request }) {
        const filter: SuppressionFilter = { search: params.search || undefined, status: params.status };
        const page = await ctx.core.suppressions.list(signedIn(user).acting, { ...corePage(params), ...filter });
        return pageReply(request, params, page.rows.map(suppressionItem), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Adds an address to the suppression list by hand (status suppressed), with an optional one-line reason; an address already suppressed keeps its entry',
      args: Type.Object({
        email: Type.String({ description: 'The address to stop sending to.', maxLength: 254 }),
        reason: Type.Optional(Type.String({ description: 'Why, in one line (shown in the list).', maxLength: 500 })),
      }),
      async handle({ ctx, user, params, log }) {
        const added = valueOf(await ctx.core.suppressions.add(signedIn(user).acting, params.email, params.reason ?? '', log));
        return { status: 201, body: suppressionItem(added) };
      },
    }),
  ],
};

const exported: Route = {
  namespace: 'tern/v2',
  path: '/suppressions/export',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's suppressed addresses as a CSV download (email,status,reason,message_id,created_at), newest first",
      args: Type.Object(filterArgs),
      async handle({ ctx, user, params }) {
        const team = signedIn(user).acting;
        const filter: SuppressionFilter = { search: params.search || undefined, status: params.status };
        const filename = `suppressions-team-${team.id}-${new Date().toISOString().slice(0, 10)}.csv`;
        return Promise.resolve({
          body: new StreamedBody('text/csv; charset=utf-8', () => csvOf(ctx.core.suppressions.walk(team, filter))),
          headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
        });
      },
    }),
  ],
};

export const suppressionRoutes: readonly Route[] = [suppressions, exported];
