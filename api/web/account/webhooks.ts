// The webhooks page: the team's webhooks (name, URL, events, active or paused) and the form registering one.
// A created webhook is answered with a redirect to the page (a reload registers no second one); its signing
// secret waits for that page in a one-time flash (web/flash.ts), shown once, never in a URL. A refused form
// comes back with what was typed and every problem in its labels' words. One webhook's own page is webhook-page.ts. Same use cases as http/dashboard/webhook-routes.ts.
import { html, type Html } from '../html.js';
import { leaveFlash, takeFlash } from '../flash.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { doneAt, formErrors, noticeOf, pager, shownOnce, table, when } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import { postedFields, webhookFormRefusal, webhookInputs } from './webhook-form.js';
import type { WebhookFields } from '../../../shared/core/webhooks.js';
import { statusBadge, WEBHOOK_PAGE_PAGES, WEBHOOKS_PATH, webhookPath } from './webhook-page.js';

const TITLE = 'Webhooks';
const PER_PAGE = 50;
const NOTICES = {
  deleted: 'The webhook is deleted: nothing is sent to it any more.',
  created: 'The webhook is added.',
};
/** The flash a created webhook leaves for the page (web/flash.ts). */
const FLASH_PAGE = 'webhooks';

/** A refused form: its problems, its status, and what was typed (shown again in it). */
interface Refused {
  messages: string[];
  status: number;
  typed: WebhookFields;
}

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

function createForm(c: Call, refused?: Refused): Html {
  return html`<form method="post" action="${WEBHOOKS_PATH}" class="card">
    <h2>Add a webhook</h2>
    ${formErrors(refused?.messages)} ${formGuard(c.viewer)} ${webhookInputs('new', refused?.typed)}
    <button type="submit" class="primary" id="create-webhook">Add webhook</button>
  </form>`;
}

async function webhooksPage(c: Call, o: { secret?: string; error?: Refused } = {}): Promise<PageAnswer> {
  const body = html`${noticeOf(c.r, NOTICES)} ${o.secret ? shownOnce('new-secret', 'The webhook’s signing secret', o.secret) : undefined}
    <p class="hint">Each event is POSTed once as JSON, signed by the Standard Webhooks scheme with the webhook’s secret.</p>
    ${await list(c)} ${viewerMay(c.ctx, c.viewer, 'write') ? createForm(c, o.error) : html`<p class="muted">Your role lets you see the webhooks, not change them.</p>`}`;
  return { kind: 'page', status: o.error?.status, title: TITLE, body };
}

/** The webhooks page, with the secret a form just made shown this once (taken from its flash). */
async function showWebhooks(c: Call): Promise<PageReply> {
  const flash = await takeFlash(c.ctx, c.viewer, FLASH_PAGE);
  return webhooksPage(c, { secret: flash?.secret });
}

async function createWebhook(c: Call): Promise<PageReply> {
  const fields = postedFields(c.form);
  const created = await c.ctx.core.webhooks.create(c.viewer.acting, fields, c.log);
  if (!created.ok) return webhooksPage(c, { error: { ...webhookFormRefusal(created.refusal), typed: fields } });
  await leaveFlash(c.ctx, c.viewer, FLASH_PAGE, { secret: created.value.secret });
  return { kind: 'redirect', status: 303, location: doneAt(WEBHOOKS_PATH, 'created') };
}

export const WEBHOOK_PAGES = [
  accountPage({ method: 'GET', path: WEBHOOKS_PATH, title: TITLE, access: 'read', handle: showWebhooks }),
  accountPage({ method: 'POST', path: WEBHOOKS_PATH, title: TITLE, access: 'write', handle: createWebhook }),
  ...WEBHOOK_PAGE_PAGES,
];
