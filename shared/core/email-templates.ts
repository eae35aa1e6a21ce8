// The mail Tern sends itself, as operators edit it: each email's subject, body and whether it is sent (where it
// may be turned off), reset to its default, previewed with sample values; one layout around all of them. The use
// cases that mail (invitations, password resets, two-step codes, lockout notices) compose through `compose`, so an
// edit changes the next mail sent. Every change is in the platform's audit log.
import {
  DEFAULT_LAYOUT,
  EMAIL_IDS,
  EMAILS,
  defaultTemplate,
  isBlockMarkup,
  renderEmail,
  templateProblems,
  type EmailDefinition,
  type EmailId,
  type EmailLayout,
  type EmailTemplate,
  type RenderedEmail,
} from '../domain/email-templates.js';
import type { Operator } from '../domain/user.js';
import type { Store } from '../store/index.js';
import { isValidEmail } from '../email-address.js';
import type { Logger } from '../log.js';
import { auditEntry } from './audit-log.js';
import { done, invalidFields, refuse, type FieldProblem, type Managed } from './management-refusals.js';
import type { SystemMessage } from './system-mail.js';
import { NO_BLOCKS, type BlockSource } from './blocks/block-source.js';
import { renderBlockEmail } from './blocks/email.js';

export interface EmailSummary {
  id: EmailId;
  definition: EmailDefinition;
  enabled: boolean;
  /** Whether an operator's edit is in use (false: the default wording). */
  edited: boolean;
}

export interface EmailDetail extends EmailSummary {
  template: EmailTemplate;
  default: EmailTemplate;
}

const SUBJECT_MAX = 300;
const BODY_MAX = 20_000;

export class EmailTemplates {
  constructor(
    private readonly d: { store: Store },
    /** Where a body written in blocks finds the reusable blocks and template parts it names. */
    private readonly blocks: BlockSource = NO_BLOCKS,
  ) {}

  async list(): Promise<EmailSummary[]> {
    const edited = new Map((await this.d.store.emailTemplates.list()).map((t) => [t.id, t]));
    return EMAIL_IDS.map((id) => ({ id, definition: EMAILS[id], enabled: edited.get(id)?.enabled ?? true, edited: edited.has(id) }));
  }

  async find(id: string): Promise<Managed<EmailDetail>> {
    if (!isKnown(id)) return unknownEmail(id);
    const stored = await this.d.store.emailTemplates.get(id);
    const template = stored ? { subject: stored.subject, body: stored.body, enabled: stored.enabled } : defaultTemplate(id);
    return done({ id, definition: EMAILS[id], enabled: template.enabled, edited: stored !== undefined, template, default: defaultTemplate(id) });
  }

  /** The email as it would be sent with the samples' values, in the saved layout; the draft need not be valid. */
  async preview(id: string, draft: Pick<EmailTemplate, 'subject' | 'body'>): Promise<Managed<RenderedEmail>> {
    if (!isKnown(id)) return unknownEmail(id);
    const samples = Object.fromEntries(Object.entries(EMAILS[id].smartcodes).map(([code, s]) => [code, s.sample]));
    return done(await this.render(draft, await this.layout(), samples));
  }

  /** Saves an edit: the required smartcodes kept, no unknown one, and `enabled` false only where the email may be off. */
  async save(operator: Operator, id: string, t: EmailTemplate, log: Logger): Promise<Managed<EmailDetail>> {
    if (!isKnown(id)) return unknownEmail(id);
    const problems = editProblems(id, t);
    if (problems.length === 0 && isBlockMarkup(t.body)) problems.push(...(await this.blockProblems(id, t)));
    const [first, ...more] = problems;
    if (first) return invalidFields([first, ...more]);
    const at = new Date().toISOString();
    await this.d.store.emailTemplates.put(id, t, at, (before) =>
      auditEntry(
        operator,
        { action: 'email_template.save', target: { kind: 'platform', id: `email.${id}` }, before: before ? snapshot(before) : null, after: snapshot(t), reason: '' },
        at,
      ),
    );
    log.info({ by: operator.id, email: id, enabled: t.enabled }, 'email template saved');
    return this.find(id);
  }

  /** Back to the default wording (and sent again). */
  async reset(operator: Operator, id: string, log: Logger): Promise<Managed<EmailDetail>> {
    if (!isKnown(id)) return unknownEmail(id);
    const at = new Date().toISOString();
    await this.d.store.emailTemplates.remove(id, (before) =>
      auditEntry(
        operator,
        { action: 'email_template.reset', target: { kind: 'platform', id: `email.${id}` }, before: before ? snapshot(before) : null, after: null, reason: '' },
        at,
      ),
    );
    log.info({ by: operator.id, email: id }, 'email template reset');
    return this.find(id);
  }

  async layout(): Promise<EmailLayout> {
    return (await this.d.store.emailTemplates.layout()) ?? DEFAULT_LAYOUT;
  }

  async saveLayout(operator: Operator, change: Partial<EmailLayout>, log: Logger): Promise<Managed<EmailLayout>> {
    const layout = { ...(await this.layout()), ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
    const [first, ...more] = layoutProblems(layout);
    if (first) return invalidFields([first, ...more]);
    const at = new Date().toISOString();
    await this.d.store.emailTemplates.putLayout(layout, at, (before) =>
      auditEntry(
        operator,
        { action: 'email_layout.save', target: { kind: 'platform', id: 'email.layout' }, before: before ? { ...before } : null, after: { ...layout }, reason: '' },
        at,
      ),
    );
    log.info({ by: operator.id }, 'email layout saved');
    return done(layout);
  }

  /**
   * The message of email `id` to `to` with `values` for its smartcodes, in the layout (its from name and reply-to
   * included); undefined when an operator turned the email off.
   */
  async compose(id: EmailId, to: string, values: Readonly<Record<string, string>>): Promise<SystemMessage | undefined> {
    const [stored, layout] = await Promise.all([this.d.store.emailTemplates.get(id), this.layout()]);
    const template = stored ?? defaultTemplate(id);
    // Only an email that may be off is ever stored off (save refuses the others).
    if (!template.enabled && EMAILS[id].canDisable) return undefined;
    const rendered = await this.render(template, layout, values);
    return { to, ...rendered, ...(layout.fromName === null ? {} : { fromName: layout.fromName }), ...(layout.replyTo === null ? {} : { replyTo: layout.replyTo }) };
  }

  /**
   * A block body keeps its required smartcodes where the mail shows them: rendered with a marker for every value,
   * each required one must come out (a smartcode only in a block setting Tern does not read, or in the source of
   * an image, would be in the body but not in the mail). The marker is an https URL, so a link keeps it.
   */
  private async blockProblems(id: EmailId, t: Pick<EmailTemplate, 'subject' | 'body'>): Promise<FieldProblem[]> {
    const marker = (code: string) => `https://smartcode.invalid/${code}`;
    const values = Object.fromEntries(Object.keys(EMAILS[id].smartcodes).map((code) => [code, marker(code)]));
    const { text } = await this.render(t, DEFAULT_LAYOUT, values);
    const hidden = EMAILS[id].required.filter((code) => !text.includes(marker(code)));
    if (hidden.length === 0) return [];
    const codes = hidden.map((c) => `{{${c}}}`).join(', ');
    return [
      { field: 'body', message: `body must show ${codes} in a block the mail shows (a paragraph's text or link, a button's link), not only in a block's settings` },
    ];
  }

  /** A body written in blocks is rendered from its blocks (email-safe tables, text part alongside); any other
   * body is the operator's HTML with its values escaped, as before blocks. */
  private render(t: Pick<EmailTemplate, 'subject' | 'body'>, layout: EmailLayout, values: Readonly<Record<string, string>>): Promise<RenderedEmail> {
    return isBlockMarkup(t.body) ? renderBlockEmail(t, layout, values, this.blocks) : Promise.resolve(renderEmail(t, layout, values));
  }
}

/** A time as the mails say it: `2026-12-01 09:30 UTC`. */
export const mailTime = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const isKnown = (id: string): id is EmailId => (EMAIL_IDS as readonly string[]).includes(id);

const unknownEmail = <T>(id: string): Managed<T> =>
  refuse({ kind: 'invalid_field', field: 'email_id', message: `email_id must be one of ${EMAIL_IDS.join(', ')}; ${JSON.stringify(id)} is not an email Tern sends` });

const snapshot = (t: EmailTemplate) => ({ subject: t.subject, body: t.body, enabled: t.enabled });

function editProblems(id: EmailId, t: EmailTemplate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (t.subject.trim() === '' || t.subject.length > SUBJECT_MAX || /[\r\n]/.test(t.subject))
    problems.push({ field: 'subject', message: `subject must be one line of 1 to ${SUBJECT_MAX} characters` });
  if (t.body.trim() === '' || t.body.length > BODY_MAX) problems.push({ field: 'body', message: `body must have 1 to ${BODY_MAX} characters` });
  const { missing, unknown } = templateProblems(id, t);
  if (missing.length) problems.push({ field: 'body', message: `body must keep the smartcodes ${missing.map((c) => `{{${c}}}`).join(', ')}` });
  if (unknown.length)
    problems.push({
      field: 'body',
      message: `${unknown.map((c) => `{{${c}}}`).join(', ')} ${unknown.length === 1 ? 'is not a smartcode' : 'are not smartcodes'} of this email`,
    });
  if (!t.enabled && !EMAILS[id].canDisable) problems.push({ field: 'enabled', message: `${EMAILS[id].title} cannot be turned off: Tern cannot do without it` });
  return problems;
}

function layoutProblems(l: EmailLayout): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (l.logoUrl !== null && !isHttpsUrl(l.logoUrl)) problems.push({ field: 'logoUrl', message: 'logoUrl must be an https URL of at most 500 characters' });
  if (!/^#[0-9a-fA-F]{6}$/.test(l.primaryColor)) problems.push({ field: 'primaryColor', message: 'primaryColor must be a colour as #rrggbb' });
  if (l.footer.length > 1000) problems.push({ field: 'footer', message: 'footer must have at most 1000 characters' });
  if (l.fromName !== null && (l.fromName.trim() === '' || l.fromName.length > 100 || /[\r\n"<>]/.test(l.fromName)))
    problems.push({ field: 'fromName', message: 'fromName must be one line of 1 to 100 characters, without quotes or angle brackets' });
  if (l.replyTo !== null && !isValidEmail(l.replyTo)) problems.push({ field: 'replyTo', message: 'replyTo must be an email address' });
  return problems;
}

function isHttpsUrl(value: string): boolean {
  if (value.length > 500) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
