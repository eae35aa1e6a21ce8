// Sign-in with a provider on the operators' pages (/admin/sign-in-providers): per provider on or off, its client
// id, a new client secret (never shown: the page says whether one is set, and an empty field keeps it), Google's
// issuer, and the redirect URI to register with the provider. The same use case as POST
// /tern-auth/v1/social-auth-settings (core.socialSignInSettings), audited there.
import type { SocialProviderView } from '../../../shared/core/social-sign-in-settings.js';
import { isSocialProvider, PROVIDER_NAMES } from '../../../shared/domain/social-sign-in.js';
import { dashboardUrlOf, socialCallbackPath } from '../../presenters/links.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageError, pageErrorFor, type FieldLabels } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt, formErrors, noticeOf } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

const PATH = '/admin/sign-in-providers';
const TITLE = 'Sign-in providers';
const NOTICES = { saved: 'The provider’s settings are saved.' };
const LABELS: FieldLabels = { enabled: 'Offered', client_id: 'Client id', client_secret: 'Client secret', issuer: 'Issuer' };

const on = (checked: boolean): Html => (checked ? html` checked` : html``);

function providerForm(call: PageCall<OperatorViewer>, p: SocialProviderView, problems?: readonly string[]): Html {
  const { ctx, r, viewer } = call;
  const id = (field: string) => `${p.provider}-${field}`;
  const name = PROVIDER_NAMES[p.provider];
  return html`<section aria-labelledby="${id('heading')}">
    <h2 id="${id('heading')}">${name}</h2>
    ${formErrors(problems)}
    <p>Redirect URI to register with ${name}: <code id="${id('redirect-uri')}">${dashboardUrlOf(ctx, r)}${socialCallbackPath(p.provider)}</code></p>
    <form method="post" action="${PATH}">
      ${formGuard(viewer)}
      <input type="hidden" name="provider" value="${p.provider}" />
      <label class="check"><input type="checkbox" id="${id('enabled')}" name="enabled" ${on(p.enabled)} /> Offer “Sign in with ${name}”</label>
      <label for="${id('client-id')}">Client id</label>
      <input type="text" id="${id('client-id')}" name="client_id" value="${p.clientId}" maxlength="255" autocomplete="off" />
      <label for="${id('client-secret')}">Client secret</label>
      <input type="password" id="${id('client-secret')}" name="client_secret" maxlength="512" autocomplete="new-password" aria-describedby="${id('secret-hint')}" />
      <p class="hint" id="${id('secret-hint')}">${p.clientSecretSet ? 'A secret is set; leave this empty to keep it.' : 'No secret is set.'}</p>
      ${
        p.issuer === null
          ? undefined
          : html`<label for="${id('issuer')}">Issuer</label> <input type="url" id="${id('issuer')}" name="issuer" value="${p.issuer}" maxlength="2048" />`
      }
      <button type="submit" class="primary" id="${id('save')}">Save ${name}</button>
    </form>
  </section>`;
}

async function providersAnswer(call: PageCall<OperatorViewer>, refused?: { provider: string; problems: string[] }): Promise<PageReply> {
  const views = await call.ctx.core.socialSignInSettings.list();
  const body = html`${noticeOf(call.r, NOTICES)}
    <p class="hint">Users sign in with a provider only when a user with the email the provider verified already exists here.</p>
    ${views.map((p) => providerForm(call, p, refused?.provider === p.provider ? refused.problems : undefined))}`;
  return { kind: 'page', status: refused ? 400 : undefined, title: TITLE, body };
}

const providers = (call: PageCall<OperatorViewer>): Promise<PageReply> => providersAnswer(call);

async function saveProvider(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const provider = form.get('provider') ?? '';
  if (!isSocialProvider(provider)) throw pageError('not_found', 'There is no such provider.');
  const secret = form.get('client_secret') ?? '';
  const issuer = form.get('issuer');
  // An unchecked box is off (as HTML forms work); an empty secret keeps the stored one.
  const change = {
    enabled: form.get('enabled') === 'on',
    clientId: (form.get('client_id') ?? '').trim(),
    clientSecret: secret === '' ? undefined : secret,
    issuer: issuer === null ? undefined : issuer.trim(),
  };
  const saved = await ctx.core.socialSignInSettings.save(viewer.user, provider, change, log);
  if (saved.ok) return { kind: 'redirect', status: 303, location: doneAt(PATH, 'saved') };
  const problems = managementProblems(saved.refusal, LABELS);
  if (!problems) throw pageErrorFor(saved.refusal);
  return providersAnswer(call, { provider, problems });
}

export const SIGN_IN_PROVIDER_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: TITLE, handle: providers }),
  operatorPage({ method: 'POST', path: PATH, title: TITLE, handle: saveProvider }),
];
