// The overview, the account user's home page: what happened to the team's mail over the last 24 hours, 7 and 30
// days, a chart of the last 30 days by day (with the same numbers in a table), the queue now, the credits, and
// the domains that need attention (not verified yet); for a new team, first, its first steps (core.onboarding).
import type { MessageFigures } from '../../../shared/core/statistics.js';
import type { FirstStep } from '../../../shared/core/onboarding.js';
import type { Team } from '../../../shared/domain/team.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { valueOrPageError } from '../errors.js';
import { accountPage, type PageCall } from '../page.js';
import { noticeOf, table } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';
import { CHARTED, dailyChart } from '../charts.js';

const NOTICES = { password_changed: 'Your password is changed.' };

const PERIODS = [
  { label: 'Last 24 hours', hours: 24 },
  { label: 'Last 7 days', hours: 7 * 24 },
  { label: 'Last 30 days', hours: 30 * 24 },
] as const;

async function periodFigures(ctx: AppContext, team: Team, hours: number) {
  const to = new Date();
  const from = new Date(to.getTime() - hours * 3600_000);
  return valueOrPageError(await ctx.core.statistics.dashboard(team, { from: from.toISOString(), to: to.toISOString() }));
}

function periodsTable(rows: ReadonlyArray<{ label: string; f: MessageFigures }>): Html {
  return table(
    'Recipients by period',
    ['Period', ...CHARTED.map(([, label]) => label)],
    rows.map(
      ({ label, f }) =>
        html`<tr>
          <th scope="row">${label}</th>
          ${CHARTED.map(([key]) => html`<td class="number">${f[key]}</td>`)}
        </tr>`,
    ),
  );
}

async function domainsNeedingAttention(ctx: AppContext, team: Team): Promise<Html> {
  const domains = await ctx.core.domains.all(team);
  // With no domain there is nothing to verify yet: the first steps say what to do instead.
  if (domains.length === 0) return html`<p class="muted">No domain yet.</p>`;
  const waiting = domains.filter((d) => d.verificationStatus !== 'verified');
  if (waiting.length === 0) return html`<p class="muted">Every domain is verified.</p>`;
  return html`<ul>
    ${waiting.map((d) => html`<li><a href="/domains/${d.id}">${d.name}</a>: its DNS records are not verified yet.</li>`)}
  </ul>`;
}

/** Each first step: what to do, where, and why it matters. */
const STEP_TEXT: Record<FirstStep, { label: string; href: string; hint: string }> = {
  add_domain: { label: 'Add a sending domain', href: '/domains', hint: 'The domain your mail is sent from, e.g. example.com.' },
  publish_records: { label: 'Publish its DNS records', href: '/domains', hint: 'Tern checks them and marks the domain verified.' },
  create_key: { label: 'Create a sending key', href: '/keys', hint: 'The API’s Bearer token, or the SMTP password (the settings are on Keys).' },
  send_message: { label: 'Send a first message', href: '/logs', hint: 'Over SMTP or the API: it shows in the logs.' },
};

/** The first-run checklist (core.onboarding), until every step is done. */
async function firstSteps(ctx: AppContext, team: Team): Promise<Html | undefined> {
  const state = await ctx.core.onboarding.firstSteps(team);
  if (state.complete) return undefined;
  const item = ({ step, done }: { step: FirstStep; done: boolean }) => {
    const text = STEP_TEXT[step];
    return html`<li data-step="${step}" class="${done ? 'done' : 'todo'}">
      ${done ? html`<span class="status good">Done</span>` : html`<span class="status pending">To do</span>`}
      <a href="${text.href}">${text.label}</a>
      <span class="hint">${text.hint}</span>
    </li>`;
  };
  return html`<section class="card" aria-labelledby="first-steps-title">
    <h2 id="first-steps-title">Get started</h2>
    <ol class="checklist" id="first-steps">
      ${state.steps.map(item)}
    </ol>
  </section>`;
}

async function overview({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const team = viewer.acting;
  const figures = await Promise.all(PERIODS.map(async (p) => ({ label: p.label, f: await periodFigures(ctx, team, p.hours) })));
  const last = figures[figures.length - 1]!.f;
  const standing = await ctx.core.credits.standing(team);
  const chart = await dailyChart(ctx, team, { days: 30, caption: 'Recipients per day, last 30 days' });
  const body = html`${noticeOf(r, NOTICES)} ${await firstSteps(ctx, team)}
    <div class="cards">
      <div class="card"><span class="figure" id="queue-depth">${last.queueDepth}</span> in the queue now</div>
      <div class="card">
        <span class="figure" id="credits">${standing.balance}</span> credits${standing.creditsShared && team.parentId !== null ? ' (the account’s)' : ''}
      </div>
      <div class="card"><span class="figure">${last.sent}</span> sent in 30 days</div>
    </div>
    ${periodsTable(figures)} ${chart}
    <h2>Domains needing attention</h2>
    ${await domainsNeedingAttention(ctx, team)}`;
  return { kind: 'page', title: 'Overview', body };
}

export const OVERVIEW_PAGES = [accountPage({ method: 'GET', path: '/', title: 'Overview', access: 'read', handle: overview })];
