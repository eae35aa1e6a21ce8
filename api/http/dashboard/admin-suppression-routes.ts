// The platform's suppression list (tern/v2 /admin/suppressions), for platform operators only: every team's
// suppressed addresses with the team holding each, searched by a part of the address and filtered by team
// and status. The rules are core.suppressions'.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { suppressionItem } from '../../presenters/suppressions.js';
import { SUPPRESSION_STATUSES } from '../../../shared/domain/suppression.js';

type Route = DashboardRoute<DashboardCaller>;

const suppressions: Route = {
  namespace: 'tern/v2',
  path: '/admin/suppressions',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Every tenant's suppressed addresses, newest first (operators); search by a part of the address, counted up to the paging depth",
      args: Type.Object({
        ...collectionArgs,
        search: Type.Optional(Type.String({ description: 'Part of the address, matched literally.', minLength: 1, maxLength: 254 })),
        status: Type.Optional(oneOf(SUPPRESSION_STATUSES, { description: 'Only entries of this status (why the address is suppressed).' })),
        tenant_id: Type.Optional(Type.Integer({ description: 'Only the entries of this account or team.', minimum: 1 })),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const query = { ...corePage(params), search: params.search, status: params.status, teamId: params.tenant_id };
        const found = await ctx.core.suppressions.listAcrossTeams(query);
        return pageReply(
          request,
          params,
          found.rows.map((r) => ({ tenant_id: r.teamId, ...suppressionItem(r.suppression) })),
          found.total,
        );
      },
    }),
  ],
};

export const adminSuppressionRoutes: readonly Route[] = [suppressions];
