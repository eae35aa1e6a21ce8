// Tern's own mail on the operator's platform page: the sender in use (and whether the configuration or the
// dashboard sets it), what stops it, and the first verified domain offered as the sender in one click
// (POST /admin/system-sender, core.systemMail.useDomain: stored as a platform setting, audited).
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { PageError, pageError, pageErrorFor } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

export const SYSTEM_SENDER_PATH = '/admin/system-sender';
export const SYSTEM_MAIL_NOTICES = { system_sender_set: 'Tern’s own mail is now sent from the chosen address.' };

const SOURCES = { config: 'set by TERNMAIL_SYSTEM_MAIL_FROM (systemMail.from)', dashboard: 'chosen on this page' } as const;

/** The section of the platform page: a status line, and the one-click offer when there is one. */
export async function systemMailSection(ctx: AppContext, viewer: OperatorViewer): Promise<Html> {
  const setup = await ctx.core.systemMail.setup();
  const status = setup.problem
    ? html`<p class="error" role="alert" id="system-mail-problem">${setup.problem}</p>`
    : html`<p id="system-mail-status">Tern sends its own mail from ${setup.current?.address} (${setup.current ? SOURCES[setup.current.source] : ''}).</p>`;
  const offer = setup.offer
    ? html`<form method="post" action="${SYSTEM_SENDER_PATH}" class="inline">
        ${formGuard(viewer)}
        <input type="hidden" name="domain" value="${String(setup.offer.domainNumber)}" />
        <p>Send it from <strong>${setup.offer.address}</strong>, on the verified domain ${setup.offer.domainName}?</p>
        <button type="submit" class="primary" id="use-system-sender">Use ${setup.offer.address}</button>
      </form>`
    : setup.problem && setup.current?.source !== 'config'
      ? html`<p class="hint">Verify a domain first (any account's); it is then offered here.</p>`
      : undefined;
  return html`<section aria-labelledby="system-mail-heading">
    <h2 id="system-mail-heading">Tern’s own mail</h2>
    ${status} ${offer}
  </section>`;
}

/** A refusal an operator reads on its own pages: when Tern's own mail is what is missing, it says where to set it
 * up (the sentence end users read asks the operator, who is the reader here). */
export function forOperator(e: PageError, refusalKind: string): PageError {
  if (refusalKind !== 'system_mail_unavailable') return e;
  return new PageError(
    e.code,
    `${e.message.replace(/ Ask (them|the platform’s operator)[^.]*\.( Then try again\.)?$/, '')} Choose Tern’s sender on the Platform page (/admin).`,
    e.status,
    e.headers,
  );
}

async function useDomain({ ctx, form, viewer, log }: PageCall<OperatorViewer>): Promise<PageReply> {
  const number = Number(form.get('domain'));
  if (!Number.isSafeInteger(number) || number < 1) throw pageError('not_found', 'There is no such domain.');
  const set = await ctx.core.systemMail.useDomain(viewer.user, number, new Date().toISOString(), log);
  if (!set.ok) throw pageErrorFor(set.refusal);
  return { kind: 'redirect', status: 303, location: doneAt('/admin', 'system_sender_set') };
}

export const SYSTEM_MAIL_PAGES = [operatorPage({ method: 'POST', path: SYSTEM_SENDER_PATH, title: 'Platform', section: '/admin', handle: useDomain })];
