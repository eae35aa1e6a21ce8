// The keys page: the team's sending keys and the admin keys seen from it (masked), a form to create a sending
// key (limited to one domain or not), the "Create admin key" card with its scope checklist (the owner, on the
// main account, as the core allows), and revoking with a confirmation. A new key's value is in the answer to
// its form only (200, never a redirect, so no reload or back button shows it again). Same use cases as
// http/dashboard/key-routes.ts.
import type { KeyRecord } from '../../domain/key-record.js';
import type { Managed } from '../../core/management-refusals.js';
import type { CreatedKey } from '../../core/sending-keys.js';
import { idOf, opaqueId } from '../../http/dashboard/opaque-ids.js';
import { maskKey } from '../../shared/api-key.js';
import { SCOPES } from '../../shared/scopes.js';
import { html, type Html } from '../html.js';
import { pageError, pageErrorFor, valueOrPageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { actionButton, copyable, doneAt, formError, noticeOf, pager, shownOnce, table, when } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';

const KEYS_PATH = '/keys';
const TITLE = 'Keys';
const PER_PAGE = 50;
const NOTICES = { revoked: 'The key is revoked: requests and SMTP logins with it are refused from now on.' };

/** What the page shows besides the lists: a value just created (once), or the error of a form. */
interface Outcome {
  created?: { label: string; value: string };
  error?: { message: string; status: number };
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

async function sendingKeyForm(c: Call): Promise<Html> {
  const domains = await c.ctx.core.domains.all(c.viewer.acting);
  return html`<form method="post" action="${KEYS_PATH}" class="card">
    <h2>Create sending key</h2>
    ${formGuard(c.viewer)}
    <label for="sending-name">Name</label>
    <input type="text" id="sending-name" name="name" maxlength="100" required aria-describedby="sending-name-hint" />
    <p class="hint" id="sending-name-hint">What uses it, e.g. “Web shop”.</p>
    <label for="sending-domain">Domain it may send from</label>
    <select id="sending-domain" name="domain">
      <option value="">Every domain of the team</option>
      ${domains.map((d) => html`<option value="${d.id}">${d.name}</option>`)}
    </select>
    <button type="submit" class="primary" id="create-sending-key">Create sending key</button>
  </form>`;
}

function adminKeyForm(c: Call): Html {
  const boxes = SCOPES.map((s) => {
    const id = `scope-${s.replace(':', '-')}`;
    return html`<label for="${id}"><input type="checkbox" id="${id}" name="scopes" value="${s}" /> ${s}</label>`;
  });
  return html`<form method="post" action="${KEYS_PATH}/admin" class="card">
    <h2>Create admin key</h2>
    <p class="hint">An admin key manages the account through /v2 (domains, keys, webhooks, teams…); its scopes are fixed for its life.</p>
    ${formGuard(c.viewer)}
    <label for="admin-name">Name</label>
    <input type="text" id="admin-name" name="name" maxlength="100" required />
    <fieldset>
      <legend>Scopes (at least one; a :write scope includes its :read)</legend>
      ${boxes}
    </fieldset>
    <button type="submit" class="primary" id="create-admin-key">Create admin key</button>
  </form>`;
}

async function keysPage(c: Call, o: Outcome = {}): Promise<PageAnswer> {
  const forms = viewerMay(c.ctx, c.viewer, 'write')
    ? html`${await sendingKeyForm(c)} ${managesAdminKeys(c) ? adminKeyForm(c) : undefined}`
    : html`<p class="muted">Your role lets you see the keys, not create or revoke them.</p>`;
  const body = html`${noticeOf(c.r, NOTICES)} ${formError(o.error?.message)} ${o.created ? shownOnce('new-key', o.created.label, o.created.value) : undefined}
    <h2>Sending keys</h2>
    <p class="hint">Sending keys send mail: as the API's Bearer token, or as the SMTP password.</p>
    ${await sendingKeys(c)} ${smtpSettings(c)}
    <h2>Admin keys</h2>
    ${await adminKeys(c)} ${forms}`;
  return { kind: 'page', status: o.error?.status, title: TITLE, body };
}

/** The page again with the new key shown once, or with the refusal as the form's error (its status kept). */
async function answerCreation(c: Call, label: string, created: Managed<CreatedKey>): Promise<PageReply> {
  if (!created.ok) {
    const e = pageErrorFor(created.refusal);
    if (e.status === 403) throw e;
    // A domain not the team's is a bad choice in the form (400), not a missing page.
    return keysPage(c, { error: { message: e.message, status: e.status === 404 ? 400 : e.status } });
  }
  return keysPage(c, { created: { label, value: created.value.value } });
}

const nameOf = (form: URLSearchParams): string | undefined => {
  const name = (form.get('name') ?? '').trim();
  return name && name.length <= 100 ? name : undefined;
};

const badName = (c: Call) => keysPage(c, { error: { message: 'Give the key a name of 1 to 100 characters.', status: 400 } });

async function createSendingKey(c: Call): Promise<PageReply> {
  const name = nameOf(c.form);
  if (!name) return badName(c);
  const domainId = c.form.get('domain') || undefined;
  return answerCreation(c, 'Your new sending key', await c.ctx.core.sendingKeys.create(c.viewer.acting, { name, domainId }, c.log));
}

async function createAdminKey(c: Call): Promise<PageReply> {
  const name = nameOf(c.form);
  if (!name) return badName(c);
  const scopes = c.form.getAll('scopes');
  if (scopes.length === 0) return keysPage(c, { error: { message: 'Tick at least one scope for the admin key.', status: 400 } });
  return answerCreation(c, 'Your new admin key', await c.ctx.core.adminKeys.issueBy(c.viewer.user, c.viewer.acting, { name, scopes }, c.log));
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
  accountPage({ method: 'GET', path: KEYS_PATH, title: TITLE, access: 'read', handle: (c) => keysPage(c) }),
  accountPage({ method: 'POST', path: KEYS_PATH, title: TITLE, access: 'write', handle: createSendingKey }),
  accountPage({ method: 'POST', path: `${KEYS_PATH}/admin`, title: TITLE, section: KEYS_PATH, access: 'write', handle: createAdminKey }),
  accountPage({ method: 'POST', path: `${KEYS_PATH}/:key_hash/revoke`, title: TITLE, section: KEYS_PATH, access: 'write', handle: revokeKey }),
];
