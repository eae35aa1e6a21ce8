// Every team's sending domains (/admin/domains): name, team, verification, last check; search by name and
// filters by status and team. The same core use case as the REST route (core.adminDomains).
import { VERIFICATION_STATUSES, type VerificationStatus } from '../../../shared/domain/sending-domain.js';
import type { TeamDomain } from '../../../shared/core/admin/domains.js';
import { html, type Html } from '../html.js';
import { operatorPage, type PageCall } from '../page.js';
import { badge, table, when, type Tone } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { choiceQuery, choicesOf, filterForm, idQuery, listPage, listPager, textQuery } from '../lists.js';
import { teamLink } from './shared.js';

const TONES: Readonly<Record<VerificationStatus, Tone>> = { draft: 'pending', verified: 'good' };

function domainRow({ domain, team }: TeamDomain): Html {
  return html`<tr>
    <th scope="row">${domain.name}</th>
    <td>${teamLink(team)}</td>
    <td>${badge(domain.verificationStatus, TONES[domain.verificationStatus])}</td>
    <td>${when(domain.verifiedAt)}</td>
    <td>${when(domain.lastCheckAt)}</td>
    <td>${when(domain.createdAt)}</td>
  </tr>`;
}

async function domains({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const filter = {
    search: textQuery(r, 'search', 'The name searched', 253),
    status: choiceQuery(r, 'status', 'Status', VERIFICATION_STATUSES),
    teamId: idQuery(r, 'tenant_id', 'The tenant'),
  };
  const page = listPage(ctx, r);
  const found = await ctx.core.adminDomains.list(filter, page);
  const filters = filterForm(r, '/admin/domains', [
    { name: 'search', label: 'Name contains' },
    { name: 'status', label: 'Verification', choices: choicesOf(VERIFICATION_STATUSES) },
    { name: 'tenant_id', label: 'Tenant (id)', type: 'number' },
  ]);
  const head = ['Domain', 'Tenant', 'Verification', 'Verified', 'Last checked', 'Added'];
  const body = html`${filters} ${table('Sending domains of every tenant', head, found.rows.map(domainRow), 'No domain matches these filters.')}
  ${listPager(r, page, found.total)}`;
  return { kind: 'page', title: 'Domains', body };
}

export const ADMIN_DOMAIN_PAGES = [operatorPage({ method: 'GET', path: '/admin/domains', title: 'Domains', handle: domains })];
