// The keys page: the team's sending keys and the admin keys seen from it (masked), a form to create a sending
// key (limited to one domain or not), the "Create admin key" card with its scope checklist (the owner, on the
// main account, as the core allows), and revoking with a confirmation. A created key is answered
// with a redirect to the page (a reload makes no second key); its value waits for that page in a one-time flash
// (web/flash.ts), so it is shown once and never travels in a URL. Same use cases and rules (a name of 1 to 100
// characters) as http/dashboard/key-routes.ts.
import { KEY_NAME_MAX, type KeyRecord } from '../../../shared/domain/key-record.js';
import type { Managed } from '../../../shared/core/management-refusals.js';
import type { CreatedKey } from '../../../shared/core/sending-keys.js';
import { idOf, opaqueId } from '../../presenters/opaque-ids.js';
import { maskKey } from '../../../shared/api-key.js';
import { SCOPES } from '../../../shared/scopes.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageError, pageErrorFor, valueOrPageError, type FieldLabels } from '../errors.js';
import { leaveFlash, takeFlash } from '../flash.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { actionButton, copyable, doneAt, formErrors, noticeOf, pager, shownOnce, table, when } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';

const KEYS_PATH = '/keys';
const TITLE = 'Keys';
const PER_PAGE = 50;
const NOTICES = {
  revoked: 'The key is revoked: requests and SMTP logins with it are refused from now on.',
  created: 'The key is created.',
};
/** The flash a created key leaves for the page (web/flash.ts). */
const FLASH_PAGE = 'keys';

/** The forms' fields as their labels say them (a refusal names the core's fields). */
const SENDING_LABELS: FieldLabels = { name: 'Name', domain: 'Domain it may send from' };
const ADMIN_LABELS: FieldLabels = { name: 'Name', scopes: 'Scopes' };

type KeyForm = 'sending' | 'admin';

/** What the page shows besides the lists: a value just created (once), or a form's problems with what was typed in it. */
interface Outcome {
  created?: { label: string; value: string };
  error?: { form: KeyForm; messages: string[]; status: number; typed: URLSearchParams };
}

type Call = PageCall<AccountViewer>;

/** Admin keys are the owner's, on the main account (the core's rule; the page shows their forms only then). */
const managesAdminKeys = (c: Call): boolean => viewerMay(c.ctx, c.viewer, 'owner') && c.viewer.acting.parentId === null;

function revokeButton(c: Call, k: KeyRecord): Html | undefined {
  const mayRevoke = k.kind === 'admin' ? managesAdminKeys(c) : viewerMay(c.ctx, c.viewer, 'write');
  if (!mayRevoke) return undefined;
  const id = opaqueId(k.kind === 'admin' ? 'admin_key' : 'sending_key', k.id);
  return actionButton(c.viewer, `${KEYS_PATH}/${id}/revoke`, 'Revoke', {
    danger: true,
    confirm: `Revoke the key “${k.title}”? Anything using it stops working at once.`,
    id: `revoke-${id}`,
  });
}

async function sendingKeys(c: Call): Promise<Html> {
  const page = listPage(c.ctx, c.r, PER_PAGE).page;
  const listed = await c.ctx.core.sendingKeys.list(c.viewer.acting, { page, perPage: PER_PAGE });
  const rows = listed.rows.map(
    (k) =>
      html`<tr>
        <th scope="row">${k.title}</th>
        <td><code>${maskKey(k.keyStart, k.keyEnd)}</code></td>
        <td>${k.domainName ?? 'Every domain'}</td>
        <td>${when(k.createdAt)}</td>
        <td>${revokeButton(c, k)}</td>
      </tr>`,
  );
  const empty = 'No sending keys yet — create one to send over the API or SMTP.';
  return html`${table('Sending keys', ['Name', 'Key', 'Domain', 'Created', html`<span class="muted">Actions</span>`], rows, empty)}
  ${pager(c.r, page, Math.ceil(listed.total / PER_PAGE))}`;
}

async function adminKeys(c: Call): Promise<Html> {
  const keys = await c.ctx.core.adminKeys.list(c.viewer.acting);
  const rows = keys.map(
    (k) =>
      html`<tr>
        <th scope="row">${k.title}</th>
        <td><code>${maskKey(k.keyStart, k.keyEnd)}</code></td>
        <td>${k.scopes.length ? k.scopes.join(', ') : html`<span class="muted">none (reads /v2/info only)</span>`}</td>
        <td>${when(k.createdAt)}</td>
        <td>${revokeButton(c, k)}</td>
      </tr>`,
  );
  return table('Admin keys', ['Name', 'Key', 'Scopes', 'Created', html`<span class="muted">Actions</span>`], rows, 'No admin keys.');
}

/** How to send over SMTP with a sending key (core.onboarding.smtpSettings, from the configuration), to copy. */
function smtpSettings(c: Call): Html {
  const s = c.ctx.core.onboarding.smtpSettings();
  const ports = (list: readonly number[]) => list.join(', ');
  return html`<section class="card" id="smtp-settings" aria-labelledby="smtp-settings-title">
    <h2 id="smtp-settings-title">SMTP settings</h2>
    <dl class="facts">
      <dt>Host</dt>
      <dd>${copyable('smtp-host', s.host)}</dd>
      <dt>Port (STARTTLS)</dt>
      <dd><code>${ports(s.starttlsPorts)}</code> <span class="hint">plain SMTP upgraded with STARTTLS, required before logging in</span></dd>
      <dt>Port (TLS)</dt>
      <dd><code>${ports(s.tlsPorts)}</code> <span class="hint">TLS from the start (implicit TLS, sometimes called SSL)</span></dd>
      <dt>Username</dt>
      <dd>Any name, e.g. the key’s: Tern knows the sender by its key</dd>
      <dt>Password</dt>
      <dd>A sending key of this team (shown once, when it is created)</dd>
    </dl>
  </section>`;
}

/** The form's problems and what was typed in it, when it is the form refused. */
const refusedForm = (o: Outcome, form: KeyForm) => (o.error?.form === form ? o.error : undefined);

async function sendingKeyForm(c: Call, o: Outcome): Promise<Html> {
  const domains = await c.ctx.core.domains.all(c.viewer.acting);
  const refused = refusedForm(o, 'sending');
  const typedDomain = refused?.typed.get('domain') ?? '';
  return html`<form method="post" action="${KEYS_PATH}" class="card">
    <h2>Create sending key</h2>
    ${formErrors(refused?.messages)} ${formGuard(c.viewer)}
    <label for="sending-name">Name</label>
    <input
      type="text"
      id="sending-name"
      name="name"
      maxlength="${KEY_NAME_MAX}"
      required
      aria-describedby="sending-name-hint"
      value="${refused?.typed.get('name') ?? ''}"
    />
    <p class="hint" id="sending-name-hint">What uses it, e.g. “Web shop”.</p>
    <label for="sending-domain">Domain it may send from</label>
    <select id="sending-domain" name="domain">
      <option value="">Every domain of the team</option>
      ${domains.map((d) => (d.id === typedDomain ? html`<option value="${d.id}" selected>${d.name}</option>` : html`<option value="${d.id}">${d.name}</option>`))}
    </select>
    <button type="submit" class="primary" id="create-sending-key">Create sending key</button>
  </form>`;
}

function adminKeyForm(c: Call, o: Outcome): Html {
  const refused = refusedForm(o, 'admin');
  const ticked = refused?.typed.getAll('scopes') ?? [];
  const boxes = SCOPES.map((s) => {
    const id = `scope-${s.replace(':', '-')}`;
    return html`<label for="${id}"><input type="checkbox" id="${id}" name="scopes" value="${s}" ${ticked.includes(s) ? html`checked` : undefined} /> ${s}</label>`;
  });
  return html`<form method="post" action="${KEYS_PATH}/admin" class="card">
    <h2>Create admin key</h2>
    <p class="hint">An admin key manages the account through /v2 (domains, keys, webhooks, teams…); its scopes are fixed for its life.</p>
    ${formErrors(refused?.messages)} ${formGuard(c.viewer)}
    <label for="admin-name">Name</label>
    <input type="text" id="admin-name" name="name" maxlength="${KEY_NAME_MAX}" required value="${refused?.typed.get('name') ?? ''}" />
    <fieldset>
      <legend>Scopes (at least one; a :write scope includes its :read)</legend>
      ${boxes}
    </fieldset>
    <button type="submit" class="primary" id="create-admin-key">Create admin key</button>
  </form>`;
}

async function keysPage(c: Call, o: Outcome = {}): Promise<PageAnswer> {
  const forms = viewerMay(c.ctx, c.viewer, 'write')
    ? html`${await sendingKeyForm(c, o)} ${managesAdminKeys(c) ? adminKeyForm(c, o) : undefined}`
    : html`<p class="muted">Your role lets you see the keys, not create or revoke them.</p>`;
  const body = html`${noticeOf(c.r, NOTICES)} ${o.created ? shownOnce('new-key', o.created.label, o.created.value) : undefined}
    <h2>Sending keys</h2>
    <p class="hint">Sending keys send mail: as the API's Bearer token, or as the SMTP password.</p>
    ${await sendingKeys(c)} ${smtpSettings(c)}
    <h2>Admin keys</h2>
    ${await adminKeys(c)} ${forms}`;
  return { kind: 'page', status: o.error?.status, title: TITLE, body };
}

/** The keys page, with the value a form just created shown this once (taken from its flash). */
async function showKeys(c: Call): Promise<PageReply> {
  const flash = await takeFlash(c.ctx, c.viewer, FLASH_PAGE);
  const created = flash?.label !== undefined && flash.value !== undefined ? { label: flash.label, value: flash.value } : undefined;
  return keysPage(c, { created });
}

/**
 * A created key: its value left for the page, which the browser is sent to (303); a refusal: the page again with
 * the form's problems in its words and what was typed (its status kept; a domain not the team's is a bad choice
 * in the form, 400, not a missing page).
 */
async function answerCreation(c: Call, form: KeyForm, label: string, created: Managed<CreatedKey>): Promise<PageReply> {
  if (!created.ok) {
    const e = pageErrorFor(created.refusal);
    const notTheTeams = created.refusal.kind === 'not_found' && created.refusal.what === 'domain';
    if (e.status === 403) throw e;
    const labels = form === 'sending' ? SENDING_LABELS : ADMIN_LABELS;
    const messages = notTheTeams ? [`${SENDING_LABELS.domain}: ${e.message}`] : (managementProblems(created.refusal, labels) ?? [e.message]);
    return keysPage(c, { error: { form, messages, status: e.status === 404 ? 400 : e.status, typed: c.form } });
  }
  await leaveFlash(c.ctx, c.viewer, FLASH_PAGE, { label, value: created.value.value });
  return { kind: 'redirect', status: 303, location: doneAt(KEYS_PATH, 'created') };
}

async function createSendingKey(c: Call): Promise<PageReply> {
  const domainId = c.form.get('domain') || undefined;
  const created = await c.ctx.core.sendingKeys.create(c.viewer.acting, { name: c.form.get('name') ?? '', domainId }, c.log);
  return answerCreation(c, 'sending', 'Your new sending key', created);
}

async function createAdminKey(c: Call): Promise<PageReply> {
  const scopes = c.form.getAll('scopes');
  // At least one scope is the dashboard's rule for a key made there (its REST route says the same); the core
  // also issues scope-less keys (the CLI's, which read /v2/info only).
  if (scopes.length === 0) {
    return keysPage(c, { error: { form: 'admin', messages: ['Tick at least one scope for the admin key.'], status: 400, typed: c.form } });
  }
  const created = await c.ctx.core.adminKeys.issueBy(c.viewer.user, c.viewer.acting, { name: c.form.get('name') ?? '', scopes }, c.log);
  return answerCreation(c, 'admin', 'Your new admin key', created);
}

async function revokeKey(c: Call): Promise<PageReply> {
  const hash = c.r.params.key_hash ?? '';
  const sendingId = idOf('sending_key', hash);
  const adminId = idOf('admin_key', hash);
  if (sendingId !== undefined) valueOrPageError(await c.ctx.core.sendingKeys.revoke(c.viewer.acting, sendingId, c.log));
  else if (adminId !== undefined) valueOrPageError(await c.ctx.core.adminKeys.revokeBy(c.viewer.user, c.viewer.acting, adminId, c.log));
  else throw pageError('not_found', 'Key not found.');
  return { kind: 'redirect', status: 303, location: doneAt(KEYS_PATH, 'revoked') };
}

export const KEY_PAGES = [
  accountPage({ method: 'GET', path: KEYS_PATH, title: TITLE, access: 'read', handle: showKeys }),
  accountPage({ method: 'POST', path: KEYS_PATH, title: TITLE, access: 'write', handle: createSendingKey }),
  accountPage({ method: 'POST', path: `${KEYS_PATH}/admin`, title: TITLE, section: KEYS_PATH, access: 'write', handle: createAdminKey }),
  accountPage({ method: 'POST', path: `${KEYS_PATH}/:key_hash/revoke`, title: TITLE, section: KEYS_PATH, access: 'write', handle: revokeKey }),
];
