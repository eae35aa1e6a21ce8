// One webhook's page: its fields and the form changing them, pause or resume, delete (asked first), "Send a test
// event" (a signed sample through the outbox and the dispatcher, core.webhooks.sendTest), and its delivery log
// (each attempt: time, event, answer, latency). Every change answers a 303 back to the page with a notice.
import type { Webhook } from '../../../shared/domain/webhook.js';
import type { WebhookDeliveryRecord } from '../../../shared/domain/feedback.js';
import { idOf, opaqueId } from '../../presenters/opaque-ids.js';
import { html, type Html } from '../html.js';
import { pageError, valueOrPageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formErrors, noticeOf, pager, table, when } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import { postedFields, webhookFormRefusal, webhookInputs } from './webhook-form.js';
import type { WebhookFields } from '../../../shared/core/webhooks.js';

export const WEBHOOKS_PATH = '/webhooks';
const TITLE = 'Webhook';
const PER_PAGE = 25;
const NOTICES = {
  updated: 'The webhook is saved.',
  paused: 'The webhook is paused: events are not sent to it until it is resumed.',
  resumed: 'The webhook is active again.',
  test_sent: 'A test event is on its way: its attempt shows in the log below within a few seconds (reload to see it).',
};

type Call = PageCall<AccountViewer>;

export const webhookPath = (w: Webhook): string => `${WEBHOOKS_PATH}/${opaqueId('webhook', w.id)}`;

export const statusBadge = (w: Webhook): Html => (w.status === 'active' ? badge('Active', 'good') : badge('Paused', 'pending'));

/** The webhook the URL names, of the team acted on; anything else is a missing page (404). */
async function webhookOf(c: Call): Promise<Webhook> {
  const id = idOf('webhook', c.r.params.webhook_hash ?? '');
  if (id === undefined) throw pageError('not_found', 'Webhook not found.');
  return valueOrPageError(await c.ctx.core.webhooks.get(c.viewer.acting, id));
}

function attemptRow(d: WebhookDeliveryRecord): Html {
  const ok = d.statusCode !== null && d.statusCode >= 200 && d.statusCode <= 299;
  return html`<tr>
    <td>${when(d.attemptedAt)}</td>
    <td>${d.eventType}</td>
    <td>${ok ? badge('Delivered', 'good') : badge('Failed', 'bad')}</td>
    <td class="number">${d.statusCode ?? '—'}</td>
    <td class="number">${d.latencyMs} ms</td>
    <td>${d.error ?? ''}</td>
  </tr>`;
}

async function deliveryLog(c: Call, w: Webhook): Promise<Html> {
  const page = listPage(c.ctx, c.r, PER_PAGE).page;
  const listed = valueOrPageError(await c.ctx.core.webhooks.deliveries(c.viewer.acting, { page, perPage: PER_PAGE, webhookId: w.id }));
  const head = ['Time', 'Event', 'Result', html`<span class="number">Status</span>`, 'Latency', 'Error'];
  const empty = 'No delivery yet — events are sent as bounces and complaints happen, or send a test event.';
  return html`<section id="deliveries" aria-labelledby="deliveries-heading">
    <h2 id="deliveries-heading">Delivery log</h2>
    ${table('Delivery attempts, newest first', head, listed.rows.map(attemptRow), empty)} ${pager(c.r, page, Math.ceil(listed.total / PER_PAGE))}
    <p><a href="${webhookPath(w)}">Refresh the log</a></p>
  </section>`;
}

function actions(c: Call, w: Webhook): Html {
  const at = webhookPath(w);
  const pause =
    w.status === 'active'
      ? actionButton(c.viewer, `${at}/pause`, 'Pause', { id: 'pause-webhook' })
      : actionButton(c.viewer, `${at}/resume`, 'Resume', { id: 'resume-webhook' });
  return html`<div class="card">
    <h2>Actions</h2>
    ${actionButton(c.viewer, `${at}/test`, 'Send a test event', { id: 'send-test-event' })} ${pause}
    ${actionButton(c.viewer, `${at}/delete`, 'Delete', {
      danger: true,
      id: 'delete-webhook',
      confirm: 'Delete this webhook? Events stop being sent to it at once.',
    })}
  </div>`;
}

function editForm(c: Call, w: Webhook, refused?: Refused): Html {
  return html`<form method="post" action="${webhookPath(w)}" class="card">
    <h2>Edit</h2>
    ${formErrors(refused?.messages)} ${formGuard(c.viewer)} ${webhookInputs('edit', refused?.typed ?? w)}
    <button type="submit" class="primary" id="save-webhook">Save changes</button>
  </form>`;
}

/** A refused edit: its problems, its status, and what was typed (shown again in the form). */
interface Refused {
  messages: string[];
  status: number;
  typed: WebhookFields;
}

async function webhookPage(c: Call, o: { error?: Refused } = {}): Promise<PageAnswer> {
  const w = await webhookOf(c);
  const writer = viewerMay(c.ctx, c.viewer, 'write');
  const body = html`${noticeOf(c.r, NOTICES)}
    <p><a href="${WEBHOOKS_PATH}">All webhooks</a></p>
    <dl>
      <dt>Name</dt>
      <dd>${w.title || 'Untitled webhook'}</dd>
      <dt>URL</dt>
      <dd><code class="url">${w.url}</code></dd>
      <dt>Events</dt>
      <dd>${w.events.join(', ')}${w.includeMessage ? ', with the message' : ''}</dd>
      <dt>Status</dt>
      <dd>${statusBadge(w)}</dd>
    </dl>
    ${writer ? actions(c, w) : undefined} ${await deliveryLog(c, w)} ${writer ? editForm(c, w, o.error) : undefined}`;
  return { kind: 'page', status: o.error?.status, title: `${TITLE}: ${w.title || 'untitled'}`, body };
}

const back = (c: Call, code: string): PageReply => ({ kind: 'redirect', status: 303, location: doneAt(`${WEBHOOKS_PATH}/${c.r.params.webhook_hash ?? ''}`, code) });

async function saveWebhook(c: Call): Promise<PageReply> {
  const w = await webhookOf(c);
  const typed = postedFields(c.form);
  const saved = await c.ctx.core.webhooks.update(c.viewer.acting, w.id, typed, c.log);
  if (saved.ok) return back(c, 'updated');
  return webhookPage(c, { error: { ...webhookFormRefusal(saved.refusal), typed } });
}

const setStatus = (status: Webhook['status'], code: string) => async (c: Call) => {
  const w = await webhookOf(c);
  valueOrPageError(await c.ctx.core.webhooks.update(c.viewer.acting, w.id, { status }, c.log));
  return back(c, code);
};

async function sendTest(c: Call): Promise<PageReply> {
  const w = await webhookOf(c);
  valueOrPageError(await c.ctx.core.webhooks.sendTest(c.viewer.acting, w.id, c.log));
  return back(c, 'test_sent');
}

async function deleteWebhook(c: Call): Promise<PageReply> {
  const w = await webhookOf(c);
  valueOrPageError(await c.ctx.core.webhooks.remove(c.viewer.acting, w.id, c.log));
  return { kind: 'redirect', status: 303, location: doneAt(WEBHOOKS_PATH, 'deleted') };
}

const ONE = `${WEBHOOKS_PATH}/:webhook_hash`;
const write = (path: string, handle: (c: Call) => Promise<PageReply>) =>
  accountPage({ method: 'POST', path, title: TITLE, section: WEBHOOKS_PATH, access: 'write', handle });

export const WEBHOOK_PAGE_PAGES = [
  accountPage({ method: 'GET', path: ONE, title: TITLE, section: WEBHOOKS_PATH, access: 'read', handle: (c) => webhookPage(c) }),
  write(ONE, saveWebhook),
  write(`${ONE}/pause`, setStatus('inactive', 'paused')),
  write(`${ONE}/resume`, setStatus('active', 'resumed')),
  write(`${ONE}/test`, sendTest),
  write(`${ONE}/delete`, deleteWebhook),
];
