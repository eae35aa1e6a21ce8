// The webhooks page: the team's webhooks (name, URL, events, active or paused) and the form registering one.
// The new webhook's signing secret is in the answer to that form only (200, never a redirect, so it cannot be
// shown again). One webhook's own page is webhook-page.ts. Same use cases as http/dashboard/webhook-routes.ts.
import { html, type Html } from '../html.js';
import { pageErrorFor } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { formError, noticeOf, pager, shownOnce, table, when } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import { postedFields, webhookInputs } from './webhook-form.js';
import { statusBadge, WEBHOOK_PAGE_PAGES, WEBHOOKS_PATH, webhookPath } from './webhook-page.js';

const TITLE = 'Webhooks';
const PER_PAGE = 50;
const NOTICES = { deleted: 'The webhook is deleted: nothing is sent to it any more.' };

type Call = PageCall<AccountViewer>;

async function list(c: Call): Promise<Html> {
  const page = listPage(c.ctx, c.r, PER_PAGE).page;
  const listed = await c.ctx.core.webhooks.list(c.viewer.acting, { page, perPage: PER_PAGE });
  const rows = listed.rows.map(
    (w) =>
      html`<tr>
        <th scope="row"><a href="${webhookPath(w)}">${w.title || 'Untitled webhook'}</a></th>
        <td><code class="url">${w.url}</code></td>
        <td>${w.events.join(', ')}</td>
        <td>${statusBadge(w)}</td>
        <td>${when(w.createdAt)}</td>
      </tr>`,
  );
  const empty = 'No webhooks yet — add one to be told of bounces and complaints as they happen.';
  return html`${table('Webhooks', ['Name', 'URL', 'Events', 'Status', 'Created'], rows, empty)} ${pager(c.r, page, Math.ceil(listed.total / PER_PAGE))}`;
}

function createForm(c: Call): Html {
  return html`<form method="post" action="${WEBHOOKS_PATH}" class="card">
    <h2>Add a webhook</h2>
    ${formGuard(c.viewer)} ${webhookInputs('new')}
    <button type="submit" class="primary" id="create-webhook">Add webhook</button>
  </form>`;
}

async function webhooksPage(c: Call, o: { secret?: string; error?: { message: string; status: number } } = {}): Promise<PageAnswer> {
  const body = html`${noticeOf(c.r, NOTICES)} ${formError(o.error?.message)} ${o.secret ? shownOnce('new-secret', 'The webhook’s signing secret', o.secret) : undefined}
    <p class="hint">Each event is POSTed once as JSON, signed by the Standard Webhooks scheme with the webhook’s secret.</p>
    ${await list(c)} ${viewerMay(c.ctx, c.viewer, 'write') ? createForm(c) : html`<p class="muted">Your role lets you see the webhooks, not change them.</p>`}`;
  return { kind: 'page', status: o.error?.status, title: TITLE, body };
}

async function createWebhook(c: Call): Promise<PageReply> {
  const created = await c.ctx.core.webhooks.create(c.viewer.acting, postedFields(c.form), c.log);
  if (!created.ok) {
    const e = pageErrorFor(created.refusal);
    return webhooksPage(c, { error: { message: e.message, status: e.status } });
  }
  return webhooksPage(c, { secret: created.value.secret });
}

export const WEBHOOK_PAGES = [
  accountPage({ method: 'GET', path: WEBHOOKS_PATH, title: TITLE, access: 'read', handle: (c) => webhooksPage(c) }),
  accountPage({ method: 'POST', path: WEBHOOKS_PATH, title: TITLE, access: 'write', handle: createWebhook }),
  ...WEBHOOK_PAGE_PAGES,
];
