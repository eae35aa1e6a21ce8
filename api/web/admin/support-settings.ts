// The operators' support settings page (/admin/support-settings): where tickets go (the forwarding URL of
// GET/POST /tern-support/v1/api_settings) and the docs suggested to users writing a ticket (POST /docs), found
// by title as the portal suggests them. The same use cases as the REST routes (core.supportPortal), each change
// in the audit log; a refused form comes back with what was typed and the core's problem in the form's words.
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt, formErrors, noticeOf, table, when } from '../parts.js';
import { textQuery } from '../lists.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

const PATH = '/admin/support-settings';
const TITLE = 'Support settings';
const LABELS = { forward_url: 'Forwarding URL', title: 'Title', link: 'Link' } as const;
const NOTICES = { forwarding_saved: 'Where tickets go is saved.', doc_added: 'The doc is added: users writing a ticket are offered it.' };

type Call = PageCall<OperatorViewer>;

interface Refused {
  form: 'forwarding' | 'doc';
  messages: string[];
  status: number;
  typed: Record<string, string>;
}

function refusedAs(form: Refused['form'], refusal: ManagementRefusal, typed: Record<string, string>): Refused {
  const messages = managementProblems(refusal, LABELS);
  if (!messages) throw pageErrorFor(refusal);
  return { form, messages, status: pageErrorFor(refusal).status, typed };
}

async function forwardingForm(c: Call, refused?: Refused): Promise<Html> {
  const settings = await c.ctx.core.supportPortal.settings();
  const typed = refused?.form === 'forwarding' ? refused.typed.forward_url : undefined;
  return html`<form method="post" action="${PATH}/forwarding" class="card" id="forwarding-form">
    <h2>Where tickets go</h2>
    <p>
      Tickets are always kept in Tern. With a forwarding URL, each new ticket and response is also posted to it, signed (Standard Webhooks); saving a URL issues a new
      signing secret, shown once.
    </p>
    ${refused?.form === 'forwarding' ? formErrors(refused.messages) : undefined} ${formGuard(c.viewer)}
    <label for="forward-url">Forwarding URL <span class="muted">(empty: none)</span></label>
    <input type="url" id="forward-url" name="forward_url" maxlength="2048" value="${typed ?? settings.forwardUrl ?? ''}" aria-describedby="forward-url-hint" />
    <p class="hint" id="forward-url-hint">https, or http on port 80, 443 or 8080, on a public host name. Last changed ${when(settings.updatedAt)}.</p>
    <button type="submit" class="primary" id="save-forwarding">Save</button>
  </form>`;
}

async function docsSection(c: Call, refused?: Refused): Promise<Html> {
  const search = textQuery(c.r, 'search', 'The title searched', 200);
  const found = search === undefined ? [] : await c.ctx.core.supportPortal.searchDocs(search);
  const typed = refused?.form === 'doc' ? refused.typed : {};
  return html`<section class="card" aria-labelledby="docs-heading">
    <h2 id="docs-heading">Suggested docs</h2>
    <form method="get" action="${PATH}" role="search" aria-label="Docs" class="filters">
      <div>
        <label for="docs-search">Title contains</label>
        <input type="search" id="docs-search" name="search" value="${search ?? ''}" />
      </div>
      <button type="submit">Find</button>
    </form>
    ${
      search === undefined
        ? html`<p class="muted">Search a title to see the docs users are offered (the ten newest that match).</p>`
        : table(
            'Docs, newest first',
            ['Title', 'Link', 'Added'],
            found.map(
              (d) =>
                html`<tr>
                  <th scope="row">${d.title}</th>
                  <td><a href="${d.link}" rel="noreferrer">${d.link}</a></td>
                  <td>${when(d.createdAt)}</td>
                </tr>`,
            ),
            'No doc matches.',
          )
    }
    <form method="post" action="${PATH}/docs" id="doc-form">
      <h3>Add a doc</h3>
      ${refused?.form === 'doc' ? formErrors(refused.messages) : undefined} ${formGuard(c.viewer)}
      <label for="doc-title">Title</label>
      <input type="text" id="doc-title" name="title" maxlength="200" required value="${typed.title ?? ''}" />
      <label for="doc-link">Link</label>
      <input type="url" id="doc-link" name="link" maxlength="2048" required value="${typed.link ?? ''}" />
      <button type="submit" id="add-doc">Add the doc</button>
    </form>
  </section>`;
}

/** The signing secret a save just issued: shown on this answer only, never stored where a page could show it again. */
const secretNotice = (secret: string) =>
  html`<section class="card" id="forward-secret" role="status">
    <h2>The signing secret</h2>
    <p>Give it to the helpdesk to check each request's <code>webhook-signature</code>. It is shown this once.</p>
    <p><code>${secret}</code></p>
  </section>`;

async function settingsPage(c: Call, refused?: Refused, secret?: string): Promise<PageAnswer> {
  const body = html`${noticeOf(c.r, NOTICES)} ${secret ? secretNotice(secret) : undefined}
    <p><a href="/admin/support">The tickets</a></p>
    ${await forwardingForm(c, refused)} ${await docsSection(c, refused)}`;
  return { kind: 'page', status: refused?.status, title: TITLE, body };
}

async function saveForwarding(c: Call): Promise<PageReply> {
  const typed = (c.form.get('forward_url') ?? '').trim();
  const saved = await c.ctx.core.supportPortal.saveSettings(c.viewer.user, typed === '' ? null : typed, c.log);
  if (!saved.ok) return settingsPage(c, refusedAs('forwarding', saved.refusal, { forward_url: typed }));
  if (saved.value.secret) return settingsPage(c, undefined, saved.value.secret);
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'forwarding_saved') };
}

async function addDoc(c: Call): Promise<PageReply> {
  const typed = { title: c.form.get('title') ?? '', link: (c.form.get('link') ?? '').trim() };
  const added = await c.ctx.core.supportPortal.addDoc(c.viewer.user, typed.title, typed.link, c.log);
  if (!added.ok) return settingsPage(c, refusedAs('doc', added.refusal, typed));
  return { kind: 'redirect', status: 303, location: `${doneAt(PATH, 'doc_added')}&search=${encodeURIComponent(added.value.title)}` };
}

export const ADMIN_SUPPORT_SETTINGS_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: TITLE, section: '/admin/support', handle: (c) => settingsPage(c) }),
  operatorPage({ method: 'POST', path: `${PATH}/forwarding`, title: TITLE, section: '/admin/support', handle: saveForwarding }),
  operatorPage({ method: 'POST', path: `${PATH}/docs`, title: TITLE, section: '/admin/support', handle: addDoc }),
];
