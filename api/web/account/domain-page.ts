// A domain's page: the DNS records to publish (each with a copy button), the last DNS check per record with a
// "Check now" button, its DMARC state read on demand with a suggested record, its sending figures, the ways to
// publish the records (email them to whoever runs the zone, or publish them in Cloudflare) and its deletion.
// Every action posts to web/account/domain-actions.ts, which renders this page again when one is refused.
import type { CheckedDomain } from '../../../shared/core/domains.js';
import type { DmarcReport } from '../../../shared/core/dmarc/check.js';
import type { DomainFigures } from '../../../shared/core/statistics.js';
import type { DnsConnectionLink } from '../../../shared/core/dns-connection.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { valueOrPageError } from '../errors.js';
import { formGuard } from '../layout.js';
import type { PageCall } from '../page.js';
import { actionButton, badge, copyable, formError, noticeOf, table, when } from '../parts.js';
import type { PageAnswer } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';

type DomainCheck = CheckedDomain['check'];
type RecordCheck = DomainCheck['dkim'];

export const NOTICES = {
  added: 'The domain is added. Publish the DNS records below in its zone: Tern checks them on its own, or press "Check now".',
  checked: 'The DNS records were checked just now.',
  records_sent: 'The DNS records are on their way to that address.',
  cloudflare_connected: 'Cloudflare is connected: its token is stored encrypted and never shown again.',
  cloudflare_disconnected: 'Cloudflare is disconnected; the records already published stay in the zone.',
  published: 'The records are published in the Cloudflare zone. DNS may take a minute to answer with them: then press "Check now".',
  published_unchanged: 'The Cloudflare zone already held these records: nothing was changed.',
} as const;

/** The reasons an action on the page was refused, each shown beside its own form. */
export interface PageProblems {
  check?: string;
  dmarc?: string;
  send?: string;
  cloudflare?: string;
}

export interface DomainPageExtras {
  /** The DMARC report read on demand (the "Check DMARC" button). */
  dmarc?: DmarcReport;
  problems?: PageProblems;
  /** The status of the page when an action was refused (400, 429...). */
  status?: number;
  /** What the email form held when it was refused, so it is not typed again. */
  email?: string;
}

export const domainPath = (d: Pick<Domain, 'id'>): string => `/domains/${encodeURIComponent(d.id)}`;

export function statusBadge(d: Domain): Html {
  if (d.verificationStatus === 'verified') return badge('Verified', 'good');
  return d.autoVerifyActive ? badge('Not verified', 'pending') : badge('Not verified — automatic checks stopped', 'bad');
}

function recordsTable(ctx: AppContext, d: Domain): Html {
  const records = ctx.core.domains.publishableRecords(d);
  if (records === null) return html`<p class="error" role="alert" id="records-unavailable">${ctx.core.domains.recordsUnavailable()}</p>`;
  const rows = [records.dkim, ...records.spf].map(
    (r, i) =>
      html`<tr>
        <th scope="row">${r.type}</th>
        <td>${copyable(`record-${i}-name`, `${r.name}.${d.name}`)}</td>
        <td>${r.priority || '—'}</td>
        <td class="record-value">${copyable(`record-${i}-value`, r.content)}</td>
      </tr>`,
  );
  return table(`DNS records for ${d.name}`, ['Type', 'Name', 'Priority', 'Value'], rows);
}

const ROLES: ReadonlyArray<[keyof Pick<DomainCheck, 'dkim' | 'spf' | 'mx'>, string]> = [
  ['dkim', 'DKIM (TXT)'],
  ['spf', 'SPF at the return path (TXT)'],
  ['mx', 'Return path (MX)'],
];

function recordResult(r: RecordCheck): Html {
  if (r.ok) return badge('Found', 'good');
  return r.error ? badge(`Lookup failed (${r.error})`, 'pending') : badge('Missing or different', 'bad');
}

function checkRows(check: DomainCheck): Html[] {
  return ROLES.map(([key, label]) => {
    const r = check[key];
    const found = r.found.length ? r.found.map((f) => html`<code class="wrap">${f}</code> `) : html`<span class="muted">nothing</span>`;
    return html`<tr>
      <th scope="row">${label}</th>
      <td><code class="wrap">${r.name}</code></td>
      <td>${recordResult(r)}</td>
      <td><code class="wrap">${r.expected}</code></td>
      <td>${found}</td>
    </tr>`;
  });
}

/** The checks block: replaced in place by "Check now" under htmx, so it carries its own heading and form. */
export function checksBlock(ctx: AppContext, v: AccountViewer, d: Domain, problem?: string): Html {
  const check = ctx.core.domains.lastCheck(d);
  const result = check
    ? html`<p>${check.verified ? badge('All records found', 'good') : badge('Not every record is found yet', 'bad')} Last checked ${when(d.lastCheckAt)}.</p>
        ${table('What the last DNS check found, per record', ['Record', 'Name', 'Result', 'Expected', 'Found'], checkRows(check))}`
    : html`<p class="muted">Not checked yet: Tern checks a new domain within minutes, or press "Check now".</p>`;
  const path = domainPath(d);
  return html`<section id="checks" aria-labelledby="checks-title">
    <h2 id="checks-title">Verification</h2>
    ${formError(problem)} ${result}
    ${
      !d.autoVerifyActive && d.verificationStatus !== 'verified'
        ? html`<p class="hint">Automatic checks stopped: ${d.autoVerifyReason || 'the records were not found in time'}. "Check now" still checks.</p>`
        : undefined
    }
    <form method="post" action="${path}/verify" hx-post="${path}/verify" hx-target="#checks" hx-swap="outerHTML">
      ${formGuard(v)}
      <button type="submit" id="check-now">Check now</button> <span class="when-busy muted">Checking…</span>
    </form>
  </section>`;
}

function dmarcStatus(r: DmarcReport): Html {
  const d = r.discovery;
  switch (d.status) {
    case 'valid':
      return r.policy === 'none' ? badge('Monitoring only (p=none)', 'pending') : badge(`Enforced (p=${r.policy ?? ''})`, 'good');
    case 'none':
      return badge('No DMARC record', 'bad');
    case 'several':
      return badge('Several DMARC records', 'bad');
    case 'invalid':
      return badge('Invalid DMARC record', 'bad');
    case 'lookup_failed':
      return badge(`Lookup failed (${d.error})`, 'pending');
  }
}

const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

function dmarcReportShown(r: DmarcReport): Html {
  const d = r.discovery;
  const s = r.suggestion;
  return html`<p>${dmarcStatus(r)} Read at <code>${d.name}</code>${r.inherited ? ' (the organizational domain’s record applies)' : ''}.</p>
    ${d.found.length ? html`<p>Found: ${d.found.map((f) => html`<code class="wrap">${f}</code> `)}</p>` : undefined}
    ${
      d.status === 'invalid'
        ? html`<ul>
            ${d.problems.map((p) => html`<li>${p}</li>`)}
          </ul>`
        : undefined
    }
    <ul>
      <li>DKIM signature (d=${r.dkim.domain}) aligned: ${yesNo(r.dkim.aligned)}</li>
      <li>Return path (${r.returnPath.domain}) aligned: ${yesNo(r.returnPath.aligned)}</li>
      <li>Tern’s mail passes DMARC once authenticated: ${yesNo(r.passes)}</li>
    </ul>
    ${
      s
        ? html`<h3>Suggested record</h3>
            <p>${s.reason}</p>
            <p>TXT at ${copyable('dmarc-name', s.name)}</p>
            <p class="record-value">${copyable('dmarc-record', s.record)}</p>`
        : html`<p class="muted">No change to suggest.</p>`
    }`;
}

/** The DMARC block: the policy the last check saw, or the report read on demand. Replaced in place under htmx. */
export function dmarcBlock(d: Domain, report?: DmarcReport, problem?: string): Html {
  const path = domainPath(d);
  const before = html`<p class="muted">
    ${d.dmarcPolicy ? `The last DNS check saw the policy p=${d.dmarcPolicy}.` : 'The last DNS check saw no DMARC policy.'} Check it to see alignment and a suggested
    record.
  </p>`;
  return html`<section id="dmarc" aria-labelledby="dmarc-title">
    <h2 id="dmarc-title">DMARC</h2>
    ${formError(problem)} ${report ? dmarcReportShown(report) : before}
    <form method="get" action="${path}/dmarc" hx-get="${path}/dmarc" hx-target="#dmarc" hx-swap="outerHTML">
      <button type="submit" id="check-dmarc">Check DMARC</button> <span class="when-busy muted">Checking…</span>
    </form>
  </section>`;
}

function figuresShown(f: DomainFigures | undefined): Html {
  if (!f || f.accepted === 0) return html`<p class="muted">No mail sent from this domain in the last 30 days.</p>`;
  const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
  return html`<div class="cards">
    <div class="card"><span class="figure">${f.sent}</span> sent</div>
    <div class="card"><span class="figure">${f.bounced}</span> bounced (${pct(f.bounceRate)})</div>
    <div class="card"><span class="figure">${f.complained}</span> complaints (${pct(f.complaintRate)})</div>
    <div class="card"><span class="figure">${f.suppressed}</span> suppressed</div>
  </div>`;
}

function sendRecordsForm(v: AccountViewer, d: Domain, x: DomainPageExtras): Html {
  return html`<h3>Email the records to someone</h3>
    <p class="hint" id="send-hint">Whoever runs the DNS zone of ${d.name} gets these records by email, sent by Tern.</p>
    ${formError(x.problems?.send)}
    <form method="post" action="${domainPath(d)}/send-records">
      ${formGuard(v)}
      <label for="send-email">Their email address</label>
      <input type="email" id="send-email" name="email" maxlength="254" required autocomplete="email" value="${x.email ?? ''}" aria-describedby="send-hint" />
      <button type="submit" id="send-records">Email the records</button>
    </form>`;
}

function cloudflareForms(v: AccountViewer, d: Domain, link: DnsConnectionLink, problem?: string): Html {
  const path = domainPath(d);
  if (!link.connected) {
    return html`<h3>Publish them in Cloudflare</h3>
      ${formError(problem)}
      <form method="post" action="${path}/cloudflare">
        ${formGuard(v)}
        <label for="cloudflare-token">Cloudflare API token</label>
        <input type="password" id="cloudflare-token" name="api_token" maxlength="512" required autocomplete="off" aria-describedby="cloudflare-hint" />
        <p class="hint" id="cloudflare-hint">A token that may edit the DNS of the zone holding ${d.name}. Tern checks it with Cloudflare, then stores it encrypted.</p>
        <button type="submit" id="connect-cloudflare">Connect Cloudflare</button>
      </form>`;
  }
  return html`<h3>Publish them in Cloudflare</h3>
    <p>Cloudflare is connected (token ending in <code>${link.tokenLast4}</code>, given ${when(link.tokenUpdatedAt)}).</p>
    ${formError(problem)} ${actionButton(v, `${path}/publish`, 'Publish the records in Cloudflare', { id: 'publish-cloudflare' })}
    ${actionButton(v, `${path}/cloudflare/disconnect`, 'Disconnect Cloudflare', {
      confirm: 'Disconnect Cloudflare? Its token is forgotten; the records already published stay in the zone.',
      id: 'disconnect-cloudflare',
    })}`;
}

function deleteSection(ctx: AppContext, v: AccountViewer, d: Domain): Html {
  const records = ctx.core.domains.dnsRecords(d);
  const names = [...new Set([records.dkim, ...records.spf].map((r) => `${r.type} ${r.name}.${d.name}`))];
  return html`<section aria-labelledby="delete-title">
    <h2 id="delete-title">Delete this domain</h2>
    <p>Deleting ${d.name} stops its mail through Tern at once and revokes the sending keys limited to it. Then remove these records from its zone:</p>
    <ul>
      ${names.map((n) => html`<li><code class="wrap">${n}</code></li>`)}
    </ul>
    ${actionButton(v, `${domainPath(d)}/delete`, `Delete ${d.name}`, {
      danger: true,
      confirm: `Delete ${d.name}? Its mail stops and its sending keys are revoked. This cannot be undone.`,
      id: 'delete-domain',
    })}
  </section>`;
}

async function writeSections(ctx: AppContext, v: AccountViewer, d: Domain, x: DomainPageExtras): Promise<Html | undefined> {
  if (!viewerMay(ctx, v, 'write')) return undefined;
  const link = await ctx.core.dnsConnections.link(v.acting, 'cloudflare');
  return html`<section aria-labelledby="publish-title">
      <h2 id="publish-title">Get the records published</h2>
      ${sendRecordsForm(v, d, x)} ${cloudflareForms(v, d, link, x.problems?.cloudflare)}
    </section>
    ${deleteSection(ctx, v, d)}`;
}

/** The domain's page for the viewer; an action refused shows its reason beside its form (and its status). */
export async function domainPage({ ctx, r, viewer }: Pick<PageCall<AccountViewer>, 'ctx' | 'r' | 'viewer'>, d: Domain, x: DomainPageExtras = {}): Promise<PageAnswer> {
  const stats = valueOrPageError(await ctx.core.statistics.domainSendingStats(viewer.acting, {}));
  const figures = stats.domains.find((f) => f.domainId === d.id);
  const body = html`${x.status ? undefined : noticeOf(r, NOTICES)}
    <p>${statusBadge(d)} ${d.isDefault ? badge('Default domain', 'good') : undefined} Added ${when(d.createdAt)}.</p>
    <p><a href="/domains">All domains</a></p>
    <section aria-labelledby="records-title">
      <h2 id="records-title">DNS records</h2>
      <p>Publish these records in the DNS zone of ${d.name}, then check them.</p>
      ${recordsTable(ctx, d)}
    </section>
    ${checksBlock(ctx, viewer, d, x.problems?.check)} ${dmarcBlock(d, x.dmarc, x.problems?.dmarc)}
    <section aria-labelledby="sending-title">
      <h2 id="sending-title">Sending, last 30 days</h2>
      ${figuresShown(figures)}
    </section>
    ${await writeSections(ctx, viewer, d, x)}`;
  return { kind: 'page', status: x.status, title: d.name, body };
}
