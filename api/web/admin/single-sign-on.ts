// Single sign-on with other Tern dashboards on the operators' pages (/admin/single-sign-on): the child dashboards
// this one sends its users to and the parents it accepts users from, registering each (a child's secret shown this
// once, from a flash: never in a URL) and removing them. The same core use cases as the REST routes
// (core.singleSignOn); each change is in the audit log.
import type { SsoSite, SsoSiteKind } from '../../../shared/domain/single-sign-on.js';
import type { Managed } from '../../../shared/core/management-refusals.js';
import type { ChildRegistration } from '../../../shared/core/identity/index.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor } from '../errors.js';
import { leaveFlash, takeFlash } from '../flash.js';
import { formGuard } from '../layout.js';
import { idParam } from '../lists.js';
import { operatorPage, type PageCall } from '../page.js';
import { actionButton, doneAt, formErrors, noticeOf, shownOnce, table, when } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

const PATH = '/admin/single-sign-on';
const TITLE = 'Single sign-on';
const NOTICES = { child: 'The child dashboard is registered.', parent: 'The parent dashboard is registered.', removed: 'The dashboard is removed.' };
const LABELS = { name: 'Name', url: 'Address', site_id: 'Site id', secret: 'Secret' };

type Call = PageCall<OperatorViewer>;
interface Refused {
  kind: SsoSiteKind;
  messages: string[];
  status: number;
  typed: URLSearchParams;
}

function siteRows(v: OperatorViewer, sites: SsoSite[]): Html[] {
  return sites.map(
    (s) =>
      html`<tr>
        <th scope="row">${s.name}</th>
        <td><code>${s.url}</code></td>
        <td><code>${s.siteId}</code></td>
        <td>${when(s.createdAt)}</td>
        <td>${actionButton(v, `${PATH}/${s.id}/remove`, 'Remove', { confirm: `Remove ${s.name}?`, danger: true, id: `remove-${s.id}` })}</td>
      </tr>`,
  );
}

function siteForm(v: OperatorViewer, kind: SsoSiteKind, refused: Refused | undefined): Html {
  const typed = (name: string) => (refused?.kind === kind ? (refused.typed.get(name) ?? '') : '');
  const field = (name: keyof typeof LABELS, attrs: Html) =>
    html`<label for="${kind}-${name}">${LABELS[name]}</label>
      <input type="text" id="${kind}-${name}" name="${name}" value="${typed(name)}" autocomplete="off" required ${attrs} />`;
  return html`${refused?.kind === kind ? formErrors(refused.messages) : undefined}
    <form method="post" action="${PATH}/${kind}">
      ${formGuard(v)} ${field('name', html`maxlength="100"`)} ${field('url', html`maxlength="2048" placeholder="https://dashboard.example.com"`)}
      ${kind === 'parent' ? html`${field('site_id', html`maxlength="32"`)} ${field('secret', html`maxlength="43"`)}` : undefined}
      <button type="submit" class="primary" id="register-${kind}">Register</button>
    </form>`;
}

async function ssoPage(c: Call, refused?: Refused): Promise<PageAnswer> {
  const { ctx, r, viewer } = c;
  const [children, parents] = await Promise.all([ctx.core.singleSignOn.list('child'), ctx.core.singleSignOn.list('parent')]);
  const made = refused ? undefined : await takeFlash(ctx, viewer, PATH);
  const head = ['Name', 'Address', 'Site id', 'Registered', 'Action'];
  const body = html`${noticeOf(r, NOTICES)}
    ${
      made?.secret === undefined
        ? undefined
        : html`<p>
              On the child dashboard, register this one as a parent with its address (${made.parent_url ?? r.origin}), the site id
              <code id="new-site-id">${made.site_id ?? ''}</code> and this secret:
            </p>
            ${shownOnce('new-secret', 'The shared secret', made.secret)}`
    }
    <p class="hint">Users signed in here go to a child dashboard without signing in again; users of a parent come here the same way.</p>
    <h2>Child dashboards</h2>
    ${table('Dashboards this one sends its users to', head, siteRows(viewer, children), 'No child dashboard yet.')}
    <h3>Register a child dashboard</h3>
    ${siteForm(viewer, 'child', refused)}
    <h2>Parent dashboards</h2>
    ${table('Dashboards this one accepts users from', head, siteRows(viewer, parents), 'No parent dashboard yet.')}
    <h3>Register a parent dashboard</h3>
    <p class="hint">With the site id and secret the parent showed when it registered this dashboard as its child.</p>
    ${siteForm(viewer, 'parent', refused)}`;
  return { kind: 'page', status: refused?.status, title: TITLE, body };
}

/** A registration's answer: the page again with the form's problems in its words, or the secret left for the page once. */
async function answer(c: Call, kind: SsoSiteKind, made: Managed<ChildRegistration>): Promise<PageReply> {
  if (!made.ok) {
    const e = pageErrorFor(made.refusal);
    return ssoPage(c, { kind, messages: managementProblems(made.refusal, LABELS) ?? [e.message], status: e.status, typed: c.form });
  }
  if (kind === 'child') {
    const parentUrl = c.ctx.config.dashboard.publicUrl ?? c.r.origin;
    await leaveFlash(c.ctx, c.viewer, PATH, { site_id: made.value.site.siteId, secret: made.value.secret, parent_url: parentUrl });
  }
  return { kind: 'redirect', status: 303, location: doneAt(PATH, kind) };
}

const registerChild = async (c: Call): Promise<PageReply> =>
  answer(c, 'child', await c.ctx.core.singleSignOn.registerChild(c.viewer.user, { name: c.form.get('name') ?? '', url: c.form.get('url') ?? '' }));

async function registerParent(c: Call): Promise<PageReply> {
  const wanted = { name: c.form.get('name') ?? '', url: c.form.get('url') ?? '', siteId: c.form.get('site_id') ?? '', secret: c.form.get('secret') ?? '' };
  return answer(c, 'parent', await c.ctx.core.singleSignOn.registerParent(c.viewer.user, wanted));
}

async function remove({ ctx, r, viewer }: Call): Promise<PageReply> {
  const removed = await ctx.core.singleSignOn.remove(viewer.user, idParam(r, 'id'));
  if (!removed.ok) throw pageErrorFor(removed.refusal);
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'removed') };
}

export const SINGLE_SIGN_ON_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: TITLE, handle: (c) => ssoPage(c) }),
  operatorPage({ method: 'POST', path: `${PATH}/child`, title: TITLE, section: PATH, handle: registerChild }),
  operatorPage({ method: 'POST', path: `${PATH}/parent`, title: TITLE, section: PATH, handle: registerParent }),
  operatorPage({ method: 'POST', path: `${PATH}/:id/remove`, title: TITLE, section: PATH, handle: remove }),
];
