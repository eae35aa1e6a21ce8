// Site health on the operators' pages (/admin/site-health): every check of core/site-health.ts, run when the page is
// asked, critical ones first as WordPress's Site Health screen lists them, each with its status badge, description and
// actions. The same use case as wp-site-health/v1 (core.siteHealth.runAll).
import type { SiteHealthResult, SiteHealthStatus } from '../../../shared/core/site-health.js';
import { html, type Html } from '../html.js';
import { operatorPage, type PageCall } from '../page.js';
import { badge, type Tone } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

export const SITE_HEALTH_PATH = '/admin/site-health';

const TONE: Readonly<Record<SiteHealthStatus, Tone>> = { good: 'good', recommended: 'pending', critical: 'bad' };
const STATUS_WORDS: Readonly<Record<SiteHealthStatus, string>> = { good: 'Good', recommended: 'Recommended', critical: 'Critical' };
const ORDER: readonly SiteHealthStatus[] = ['critical', 'recommended', 'good'];

const check = (r: SiteHealthResult): Html =>
  html`<section class="card site-health-check" id="check-${r.test}" data-status="${r.status}" aria-labelledby="check-${r.test}-label">
    <h2 id="check-${r.test}-label">${r.label}</h2>
    <p>${badge(STATUS_WORDS[r.status], TONE[r.status])} <span class="muted">${r.category}</span></p>
    ${r.description.map((p) => html`<p>${p}</p>`)}
    ${r.actions.length ? html`<p class="actions">${r.actions.map((a) => html`<a href="${a.href}">${a.label}</a> `)}</p>` : undefined}
  </section>`;

function summary(results: readonly SiteHealthResult[]): Html {
  const count = (s: SiteHealthStatus) => results.filter((r) => r.status === s).length;
  return html`<p id="site-health-summary">${count('critical')} critical issues, ${count('recommended')} recommended improvements, ${count('good')} checks passed.</p>`;
}

async function siteHealthPage({ ctx }: PageCall<OperatorViewer>): Promise<PageReply> {
  const results = await ctx.core.siteHealth.runAll();
  const sorted = ORDER.flatMap((s) => results.filter((r) => r.status === s));
  const body = html`<p class="hint">Tern’s own checks, run now. The same results answer GET /api/wp-site-health/v1/tests.</p>
    ${summary(results)} ${sorted.map(check)}`;
  return { kind: 'page', title: 'Site health', body };
}

export const SITE_HEALTH_PAGES = [operatorPage({ method: 'GET', path: SITE_HEALTH_PATH, title: 'Site health', handle: siteHealthPage })];
