// The mail Tern sends itself, on the operators' pages (/admin/emails): every email with its state, one email's
// form (subject, body, whether it is sent where it may be off) with its smartcodes, a preview with sample values,
// a reset to the default, and the layout around all of them. The same core use cases as the REST routes
// (core.emailTemplates); each change is in the audit log.
import type { EmailDetail, EmailSummary } from '../../../shared/core/email-templates.js';
import type { EmailLayout, RenderedEmail } from '../../../shared/domain/email-templates.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor, type FieldLabels } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formErrors, noticeOf, table } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

const PATH = '/admin/emails';
const NOTICES = { saved: 'The email is saved: the next one sent says it.', reset: 'The email is back to its default wording.', layout_saved: 'The layout is saved.' };
const EMAIL_LABELS: FieldLabels = { subject: 'Subject', body: 'Body', enabled: 'Sent' };
const LAYOUT_LABELS: FieldLabels = { logoUrl: 'Logo URL', primaryColor: 'Colour', footer: 'Footer', fromName: 'From name', replyTo: 'Reply-to' };

function emailRow(e: EmailSummary): Html {
  return html`<tr>
    <th scope="row"><a href="${PATH}/${e.id}">${e.definition.title}</a></th>
    <td>${e.definition.recipient}</td>
    <td>${e.enabled ? badge('sent', 'good') : badge('off', 'bad')}</td>
    <td>${e.edited ? 'edited' : 'default'}</td>
  </tr>`;
}

function layoutForm(v: OperatorViewer, l: EmailLayout, problems?: readonly string[]): Html {
  return html`<h2>Layout of every email</h2>
    ${formErrors(problems)}
    <form method="post" action="${PATH}/layout">
      ${formGuard(v)}
      <label for="logo_url">Logo URL (https, optional)</label>
      <input type="url" id="logo_url" name="logo_url" value="${l.logoUrl ?? ''}" maxlength="500" />
      <label for="primary_color">Colour</label>
      <input type="color" id="primary_color" name="primary_color" value="${l.primaryColor}" />
      <label for="from_name">From name (optional)</label>
      <input type="text" id="from_name" name="from_name" value="${l.fromName ?? ''}" maxlength="100" />
      <label for="reply_to">Reply-to (optional)</label>
      <input type="email" id="reply_to" name="reply_to" value="${l.replyTo ?? ''}" maxlength="254" />
      <label for="footer">Footer</label>
      <textarea id="footer" name="footer" rows="3" maxlength="1000">${l.footer}</textarea>
      <button type="submit" class="primary" id="save-layout">Save the layout</button>
    </form>`;
}

async function emailsAnswer(call: PageCall<OperatorViewer>, layoutProblems?: { problems: string[]; status: number }): Promise<PageAnswer> {
  const { ctx, r, viewer } = call;
  const [emails, layout] = await Promise.all([ctx.core.emailTemplates.list(), ctx.core.emailTemplates.layout()]);
  const body = html`${noticeOf(r, NOTICES)}
    <p class="hint">The mail Tern sends itself. Values put in place of a smartcode are escaped; the text part is made from the HTML.</p>
    ${table('Emails Tern sends itself', ['Email', 'Sent to', 'State', 'Wording'], emails.map(emailRow))} ${layoutForm(viewer, layout, layoutProblems?.problems)}`;
  return { kind: 'page', status: layoutProblems?.status, title: 'Emails', body };
}

function previewPart(p: RenderedEmail): Html {
  return html`<section aria-labelledby="preview-heading">
    <h2 id="preview-heading">Preview, with sample values</h2>
    <p><strong>Subject:</strong> <span id="preview-subject">${p.subject}</span></p>
    <iframe title="The HTML part" sandbox="" srcdoc="${p.html}" class="preview"></iframe>
    <h3>The text part</h3>
    <pre id="preview-text">${p.text}</pre>
  </section>`;
}

interface Draft {
  subject: string;
  body: string;
  enabled: boolean;
}

function emailForm(v: OperatorViewer, e: EmailDetail, draft: Draft): Html {
  const sentBox = e.definition.canDisable
    ? html`<label class="check"><input type="checkbox" id="enabled" name="enabled" value="on" ${draft.enabled ? html`checked` : undefined} /> Sent</label>`
    : html`<p class="hint">This email cannot be turned off: Tern cannot do without it.</p>`;
  return html`<form method="post" action="${PATH}/${e.id}">
    ${formGuard(v)}
    <label for="subject">Subject</label>
    <input type="text" id="subject" name="subject" value="${draft.subject}" maxlength="300" required />
    <label for="body">Body (HTML or WordPress blocks)</label>
    <textarea id="body" name="body" rows="12" maxlength="20000" required aria-describedby="body-hint">${draft.body}</textarea>
    <p class="hint" id="body-hint">
      HTML, or block markup as the block editor saves it (<code>&lt;!-- wp:paragraph --&gt;</code>…): blocks are rendered as an email-safe layout with a text part.
    </p>
    ${sentBox}
    <button type="submit" name="intent" value="preview" id="preview">Preview</button>
    <button type="submit" name="intent" value="save" class="primary" id="save-email">Save</button>
  </form>`;
}

async function emailAnswer(
  call: PageCall<OperatorViewer>,
  draft?: Draft,
  shown?: { problems?: string[]; preview?: RenderedEmail; status?: number },
): Promise<PageAnswer> {
  const { ctx, r, viewer } = call;
  const found = await ctx.core.emailTemplates.find(r.params.id ?? '');
  if (!found.ok) throw pageErrorFor({ kind: 'not_found', what: 'message', message: 'There is no such email.' });
  const e = found.value;
  const codes = Object.entries(e.definition.smartcodes).map(
    ([code, s]) =>
      html`<tr>
        <th scope="row"><code>{{${code}}}</code></th>
        <td>${s.description}${e.definition.required.includes(code) ? html` <strong>(required)</strong>` : undefined}</td>
        <td>${s.sample}</td>
      </tr>`,
  );
  const reset = e.edited
    ? actionButton(viewer, `${PATH}/${e.id}/reset`, 'Back to the default wording', { confirm: 'Put the default wording back?', id: 'reset-email' })
    : undefined;
  const body = html`${noticeOf(r, NOTICES)}
    <p>${e.definition.description} Sent to: ${e.definition.recipient}.</p>
    ${formErrors(shown?.problems)} ${emailForm(viewer, e, draft ?? e.template)} ${reset} ${table('Smartcodes', ['Smartcode', 'Meaning', 'Sample'], codes)}
    ${shown?.preview ? previewPart(shown.preview) : undefined}`;
  return { kind: 'page', status: shown?.status, title: e.definition.title, body };
}

const emails = (call: PageCall<OperatorViewer>): Promise<PageReply> => emailsAnswer(call);
const email = (call: PageCall<OperatorViewer>): Promise<PageReply> => emailAnswer(call);

async function saveEmail(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, r, form, viewer, log } = call;
  const id = r.params.id ?? '';
  // The form shows the checkbox only for an email that may be off: there, unchecked is off; elsewhere it is sent.
  const found = await ctx.core.emailTemplates.find(id);
  const enabled = found.ok && found.value.definition.canDisable ? form.get('enabled') === 'on' : true;
  const draft = { subject: form.get('subject') ?? '', body: form.get('body') ?? '', enabled };
  if (form.get('intent') === 'preview') {
    const preview = await ctx.core.emailTemplates.preview(id, draft);
    if (!preview.ok) throw pageErrorFor(preview.refusal);
    return emailAnswer(call, draft, { preview: preview.value });
  }
  const saved = await ctx.core.emailTemplates.save(viewer.user, id, draft, log);
  if (saved.ok) return { kind: 'redirect', status: 303, location: doneAt(`${PATH}/${id}`, 'saved') };
  const problems = managementProblems(saved.refusal, EMAIL_LABELS);
  if (!problems) throw pageErrorFor(saved.refusal);
  return emailAnswer(call, draft, { problems, status: 400 });
}

async function resetEmail({ ctx, r, viewer, log }: PageCall<OperatorViewer>): Promise<PageReply> {
  const id = r.params.id ?? '';
  const reset = await ctx.core.emailTemplates.reset(viewer.user, id, log);
  if (!reset.ok) throw pageErrorFor(reset.refusal);
  return { kind: 'redirect', status: 303, location: doneAt(`${PATH}/${id}`, 'reset') };
}

/** An optional field: empty is none. */
const optional = (value: string | null): string | null => (value === null || value.trim() === '' ? null : value.trim());

async function saveLayout(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const change = {
    logoUrl: optional(form.get('logo_url')),
    primaryColor: form.get('primary_color') ?? '',
    footer: form.get('footer') ?? '',
    fromName: optional(form.get('from_name')),
    replyTo: optional(form.get('reply_to')),
  };
  const saved = await ctx.core.emailTemplates.saveLayout(viewer.user, change, log);
  if (saved.ok) return { kind: 'redirect', status: 303, location: doneAt(PATH, 'layout_saved') };
  const problems = managementProblems(saved.refusal, LAYOUT_LABELS);
  if (!problems) throw pageErrorFor(saved.refusal);
  return emailsAnswer(call, { problems, status: 400 });
}

export const EMAIL_TEMPLATE_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: 'Emails', handle: emails }),
  operatorPage({ method: 'POST', path: `${PATH}/layout`, title: 'Emails', section: PATH, handle: saveLayout }),
  operatorPage({ method: 'GET', path: `${PATH}/:id`, title: 'Emails', section: PATH, handle: email }),
  operatorPage({ method: 'POST', path: `${PATH}/:id`, title: 'Emails', section: PATH, handle: saveEmail }),
  operatorPage({ method: 'POST', path: `${PATH}/:id/reset`, title: 'Emails', section: PATH, handle: resetEmail }),
];
