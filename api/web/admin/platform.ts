// The operator's home page (/admin): the platform's teams, its recipients over the last 30 days by status and day
// by day (a chart drawn from GET /admin/stats, the same numbers in a table), the queue now, rates and credits.
// The figures are core.platformStatistics' (the REST route's).
import { MESSAGE_STATUSES } from '../../../shared/domain/queue-state.js';
import type { PlatformStats } from '../../../shared/core/admin/platform-statistics.js';
import { html, type Html } from '../html.js';
import { operatorPage, type PageCall } from '../page.js';
import { figuresTable, noticeOf, table } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { percent } from './shared.js';
import { SYSTEM_MAIL_NOTICES, systemMailSection } from './system-mail.js';

const DAYS = 30;
const NOTICES = { password_changed: 'Your password is changed.', ...SYSTEM_MAIL_NOTICES };

/** The statuses drawn: every status a recipient ends in or waits in (counted per recipient, as every figure is). */
const STATUS_LABELS: ReadonlyArray<readonly [(typeof MESSAGE_STATUSES)[number], string]> = MESSAGE_STATUSES.map((s) => [s, s[0]!.toUpperCase() + s.slice(1)]);

function figures(s: PlatformStats): Html {
  const card = (id: string, n: number | string, label: string) => html`<div class="card"><span class="figure" id="${id}">${n}</span> ${label}</div>`;
  return html`<div class="cards">
    ${card('accounts', s.teamCounts.accounts, 'accounts')} ${card('teams', s.teamCounts.teams, 'child teams')}
    ${card('suspended', s.teamCounts.suspendedAccounts + s.teamCounts.suspendedTeams, 'suspended tenants')} ${card('queue-depth', s.queueDepth, 'in the queue now')}
    ${card('outstanding', s.credits.outstanding, 'credits outstanding')}
  </div>`;
}

function byStatus(s: PlatformStats): Html {
  return figuresTable(
    `Recipients of the last ${DAYS} days by status`,
    ['Status', 'Recipients'],
    [...STATUS_LABELS.map(([key, label]) => [label, s.messages[key]] as const), ['Bounce rate', percent(s.bounceRate)], ['Complaint rate', percent(s.complaintRate)]],
  );
}

function chart(s: PlatformStats): Html {
  const spec = JSON.stringify(STATUS_LABELS.map(([field, label]) => ({ field, label })));
  const caption = `Recipients per day, last ${DAYS} days`;
  const rows = s.series.map(
    (d) =>
      html`<tr>
        <th scope="row">${d.day}</th>
        ${STATUS_LABELS.map(([key]) => html`<td class="number">${d[key]}</td>`)}
      </tr>`,
  );
  return html`<figure class="chart" data-src="/api/tern/v2/admin/stats?days=${DAYS}" data-rows="series" data-x="day" data-series="${spec}">
      <figcaption>${caption}</figcaption>
      <div class="plot" aria-hidden="true"></div>
    </figure>
    <details>
      <summary>The numbers of the chart</summary>
      ${table(caption, ['Day (UTC)', ...STATUS_LABELS.map(([, l]) => l)], rows)}
    </details>`;
}

function credits(s: PlatformStats): Html {
  const c = s.credits;
  return figuresTable(
    'Credits across the platform',
    ['Kind', 'Credits'],
    [
      ['Granted', c.granted],
      ['Purchased', c.purchased],
      ['Used', c.used],
      ['Refunded', c.refunded],
      ['Removed', c.removed],
      ['Outstanding', c.outstanding],
    ],
  );
}

async function platform({ ctx, r, viewer }: PageCall<OperatorViewer>): Promise<PageReply> {
  const s = await ctx.core.platformStatistics.stats(DAYS);
  const body = html`${noticeOf(r, NOTICES)} ${figures(s)} ${await systemMailSection(ctx, viewer)}
    <h2>Recipients</h2>
    ${byStatus(s)} ${chart(s)}
    <h2>Credits</h2>
    ${credits(s)}
    <p><a href="/admin/credits">Every grant and purchase</a> · <a href="/admin/tenants">Every tenant</a></p>`;
  return { kind: 'page', title: 'Platform', body };
}

export const PLATFORM_PAGES = [operatorPage({ method: 'GET', path: '/admin', title: 'Platform', handle: platform })];
