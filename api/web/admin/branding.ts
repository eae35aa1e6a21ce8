// The sign-in page's branding on the operators' pages (/admin/branding): a logo (an uploaded PNG, JPEG or WebP,
// or none), the background and button colours (empty: Tern's own), and a message above the sign-in form. The same
// use cases as POST /tern-auth/v1/upload-image and /auth-customizer (core.branding), audited there; the image is
// checked by its content and size there too, and a refused form keeps what was typed.
import type { SignInBranding } from '../../../shared/domain/branding.js';
import { BRANDING_MESSAGE_MAX } from '../../../shared/domain/branding.js';
import type { BrandingView } from '../../../shared/core/branding.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor, type FieldLabels } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt, formErrors, noticeOf } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { SIGN_IN_PATH } from '../sign-in.js';

const PATH = '/admin/branding';
const TITLE = 'Sign-in page';
const LOGO_FIELD = 'logo';
const NOTICES = { saved: 'The sign-in page’s look is saved.' };
const LABELS: FieldLabels = {
  file: 'The logo',
  logo_image_id: 'The logo',
  background_color: 'Background colour',
  button_color: 'Button colour',
  message: 'Message',
};

type Typed = Record<'background_color' | 'button_color' | 'message', string>;

const typedOf = (b: SignInBranding): Typed => ({ background_color: b.backgroundColor ?? '', button_color: b.buttonColor ?? '', message: b.message });

function colourField(name: keyof Typed, label: string, value: string): Html {
  return html`<label for="${name}">${label}</label>
    <input type="text" id="${name}" name="${name}" value="${value}" maxlength="7" placeholder="#rrggbb" spellcheck="false" aria-describedby="${name}-hint" />
    <p class="hint" id="${name}-hint">As #rrggbb; empty for Tern’s own.</p>`;
}

function brandingForm(call: PageCall<OperatorViewer>, view: BrandingView, typed: Typed, problems?: readonly string[]): Html {
  const logo = view.logoPath;
  return html`${formErrors(problems)}
    <form method="post" action="${PATH}" enctype="multipart/form-data">
      ${formGuard(call.viewer)}
      <fieldset>
        <legend>Logo</legend>
        ${logo === null ? html`<p>No logo.</p>` : html`<p><img src="${logo}" alt="The current logo" class="branding-logo" /></p>`}
        <label for="${LOGO_FIELD}">A new logo (PNG, JPEG or WebP, at most ${call.ctx.core.branding.maxBytes} bytes)</label>
        <input type="file" id="${LOGO_FIELD}" name="${LOGO_FIELD}" accept="image/png,image/jpeg,image/webp" />
        ${logo === null ? undefined : html`<label class="check"><input type="checkbox" id="remove_logo" name="remove_logo" value="on" /> Remove the logo</label>`}
      </fieldset>
      ${colourField('background_color', 'Background colour', typed.background_color)} ${colourField('button_color', 'Button colour', typed.button_color)}
      <label for="message">Message above the sign-in form</label>
      <textarea id="message" name="message" rows="3" maxlength="${BRANDING_MESSAGE_MAX}">${typed.message}</textarea>
      <button type="submit" class="primary" id="save-branding">Save the sign-in page</button>
    </form>
    <p><a href="${SIGN_IN_PATH}" target="_blank" rel="noopener">See the sign-in page</a></p>`;
}

async function brandingAnswer(call: PageCall<OperatorViewer>, refused?: { typed: Typed; problems: string[] }): Promise<PageReply> {
  const view = await call.ctx.core.branding.get();
  const body = html`${noticeOf(call.r, NOTICES)}
    <p class="hint">What everyone sees on the sign-in and password pages, before signing in.</p>
    ${brandingForm(call, view, refused?.typed ?? typedOf(view.branding), refused?.problems)}`;
  return { kind: 'page', status: refused ? 400 : undefined, title: TITLE, body };
}

const showBranding = (call: PageCall<OperatorViewer>): Promise<PageReply> => brandingAnswer(call);

/** The logo a form asks for: a new upload's id, null to remove it, undefined to keep it; or the upload's refusal. */
async function logoOf(call: PageCall<OperatorViewer>): Promise<{ ok: true; id: string | null | undefined } | { ok: false; problems: string[] }> {
  const { ctx, file, form, viewer, log } = call;
  if (file && file.content.length > 0) {
    const kept = await ctx.core.branding.upload(viewer.user, file.content, log);
    if (kept.ok) return { ok: true, id: kept.value.image.id };
    const problems = managementProblems(kept.refusal, LABELS);
    if (!problems) throw pageErrorFor(kept.refusal);
    return { ok: false, problems };
  }
  return { ok: true, id: form.get('remove_logo') === 'on' ? null : undefined };
}

async function saveBranding(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const typed: Typed = {
    background_color: (form.get('background_color') ?? '').trim(),
    button_color: (form.get('button_color') ?? '').trim(),
    message: form.get('message') ?? '',
  };
  const logo = await logoOf(call);
  if (!logo.ok) return brandingAnswer(call, { typed, problems: logo.problems });
  const change: Partial<SignInBranding> = {
    ...(logo.id === undefined ? {} : { logoImageId: logo.id }),
    backgroundColor: typed.background_color === '' ? null : typed.background_color,
    buttonColor: typed.button_color === '' ? null : typed.button_color,
    message: typed.message,
  };
  const saved = await ctx.core.branding.save(viewer.user, change, log);
  if (saved.ok) return { kind: 'redirect', status: 303, location: doneAt(PATH, 'saved') };
  const problems = managementProblems(saved.refusal, LABELS);
  if (!problems) throw pageErrorFor(saved.refusal);
  return brandingAnswer(call, { typed, problems });
}

export const BRANDING_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: TITLE, handle: showBranding }),
  operatorPage({
    method: 'POST',
    path: PATH,
    title: TITLE,
    handle: saveBranding,
    upload: { field: LOGO_FIELD, maxBytes: (ctx) => ctx.core.branding.maxBytes },
  }),
];
