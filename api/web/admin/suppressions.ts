// Every team's suppressed addresses (/admin/suppressions), newest first: search by a part of the address,
// filters by status and team. The same core use case as the REST route (core.suppressions.listAcrossTeams).
import { SUPPRESSION_STATUSES } from '../../../shared/domain/suppression.js';
import { html } from '../html.js';
import { operatorPage, type PageCall } from '../page.js';
import { table, when } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { namedTeam } from './shared.js';
import { choiceQuery, choicesOf, filterForm, idQuery, listPage, listPager, textQuery } from '../lists.js';

async function suppressions({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const query = {
    ...listPage(ctx, r),
    search: textQuery(r, 'search', 'The address searched', 254),
    status: choiceQuery(r, 'status', 'Status', SUPPRESSION_STATUSES),
    teamId: idQuery(r, 'tenant_id', 'The tenant'),
  };
  const found = await ctx.core.suppressions.listAcrossTeams(query);
  const names = await ctx.core.adminTeams.names(found.rows.map((row) => row.teamId));
  const rows = found.rows.map(
    ({ teamId, suppression: s }) =>
      html`<tr>
        <th scope="row">${s.email}</th>
        <td>${namedTeam(teamId, names)}</td>
        <td>${s.status}</td>
        <td>${s.reason}</td>
        <td>${when(s.createdAt)}</td>
      </tr>`,
  );
  const filters = filterForm(r, '/admin/suppressions', [
    { name: 'search', label: 'Address contains' },
    { name: 'status', label: 'Status', choices: choicesOf(SUPPRESSION_STATUSES) },
    { name: 'tenant_id', label: 'Tenant (id)', type: 'number' },
  ]);
  const body = html`${filters}
  ${table('Suppressed addresses of every tenant, newest first', ['Address', 'Tenant', 'Status', 'Reason', 'Since'], rows, 'No suppressed address matches these filters.')}
  ${listPager(r, query, found.total)}`;
  return { kind: 'page', title: 'Suppressions', body };
}

export const ADMIN_SUPPRESSION_PAGES = [operatorPage({ method: 'GET', path: '/admin/suppressions', title: 'Suppressions', handle: suppressions })];
