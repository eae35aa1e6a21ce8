// The mail Tern sends itself, as templates operators may edit: each email's subject and HTML body with
// smartcodes (`{{invitation.url}}`), the smartcodes it offers and those it cannot do without, and its default
// wording; one layout (logo, colour, footer, from name, reply-to) around every one of them. Rendering puts each
// value into the HTML escaped (a team named `<script>` stays text), into the subject on one line, and makes
// the text part from the rendered HTML (html-to-text), so the two never say different things.
import escapeHtml from 'escape-html';
import { convert } from 'html-to-text';

export const EMAIL_IDS = [
  'invitation',
  'password_reset',
  'two_step_code',
  'lockout_notice',
  'platform_invitation',
  'dns_instructions',
  'low_balance',
  'support_response',
  'magic_link',
] as const;
export type EmailId = (typeof EMAIL_IDS)[number];

export interface Smartcode {
  description: string;
  /** What a preview puts in its place. */
  sample: string;
}

export interface EmailDefinition {
  title: string;
  description: string;
  /** Who receives it, in words. */
  recipient: string;
  /** Whether an operator may turn it off (a mail a sign-in or an invitation cannot do without may not be). */
  canDisable: boolean;
  smartcodes: Readonly<Record<string, Smartcode>>;
  /** Smartcodes a saved body must keep (without them the mail cannot do its job). */
  required: readonly string[];
  subject: string;
  body: string;
}

/** An email as stored or as it is by default: what an operator edits. */
export interface EmailTemplate {
  subject: string;
  body: string;
  enabled: boolean;
}

export interface EmailLayout {
  /** An https URL of an image shown above every mail; null for none. */
  logoUrl: string | null;
  /** `#rrggbb`: links and the heading rule. */
  primaryColor: string;
  /** Plain text under every mail (the platform's name and address, say); '' for none. */
  footer: string;
  /** The display name mail is sent under; null: the configuration's systemMail.fromName. */
  fromName: string | null;
  /** Where replies go; null: none (replies go to the sender). */
  replyTo: string | null;
}

export const DEFAULT_LAYOUT: EmailLayout = { logoUrl: null, primaryColor: '#1a56db', footer: '', fromName: null, replyTo: null };

const EXPIRY: Smartcode = { description: 'When it stops working (UTC)', sample: '2026-12-01 09:30 UTC' };

export const EMAILS: Readonly<Record<EmailId, EmailDefinition>> = {
  invitation: {
    title: 'Invitation',
    description: 'Sent when an owner or admin invites someone to their account or one of its teams.',
    recipient: 'The invited address',
    canDisable: false,
    smartcodes: {
      'invitation.url': { description: 'The link that accepts the invitation', sample: 'https://dash.example.com/accept-invitation?token=sample' },
      'invitation.expires_at': EXPIRY,
      'invitation.role': { description: 'The role offered', sample: 'admin' },
      'inviter.name': { description: 'Who invites: their name, or their email', sample: 'Ada Lovelace (ada@example.com)' },
      'team.name': { description: 'Where to: the account, or a team of it', sample: 'Acme' },
      'account.name': { description: 'The account', sample: 'Acme' },
    },
    required: ['invitation.url'],
    subject: 'You are invited to {{account.name}} on Tern',
    body: [
      '<p>Hello,</p>',
      '<p>{{inviter.name}} invited you to <b>{{team.name}}</b> on Tern, as {{invitation.role}}.</p>',
      '<p>Accept the invitation and choose your password here: <a href="{{invitation.url}}">{{invitation.url}}</a></p>',
      '<p>The link works once, until {{invitation.expires_at}}.</p>',
    ].join('\n'),
  },
  password_reset: {
    title: 'Password reset',
    description: 'Sent when someone asks for a new password on the sign-in page.',
    recipient: 'The user',
    canDisable: false,
    smartcodes: {
      'reset.url': { description: 'The link that sets a new password', sample: 'https://dash.example.com/reset-password?token=sample' },
      'reset.expires_at': EXPIRY,
      'user.email': { description: "The user's email", sample: 'ada@example.com' },
      'request.address': { description: 'The client address the request came from', sample: '192.0.2.10' },
    },
    required: ['reset.url'],
    subject: 'Reset your Tern password',
    body: [
      '<p>Hello,</p>',
      '<p>Someone asked to reset the password of the Tern account <b>{{user.email}}</b> (from the address {{request.address}}).</p>',
      '<p>Choose a new password here: <a href="{{reset.url}}">{{reset.url}}</a></p>',
      '<p>The link works once, until {{reset.expires_at}}.</p>',
      '<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>',
    ].join('\n'),
  },
  two_step_code: {
    title: 'Two-step sign-in code',
    description: 'Sent after a right password when the account asks the user’s role for a second step.',
    recipient: 'The user signing in',
    canDisable: false,
    smartcodes: {
      'code.value': { description: 'The six-digit code', sample: '402913' },
      'code.minutes': { description: 'How many minutes it works', sample: '10' },
      'request.address': { description: 'The client address the sign-in came from', sample: '192.0.2.10' },
    },
    required: ['code.value'],
    subject: 'Your Tern sign-in code: {{code.value}}',
    body: [
      '<p>Hello,</p>',
      '<p>Your sign-in code is <b style="font-size:1.4em;letter-spacing:0.15em">{{code.value}}</b></p>',
      '<p>It works once, for {{code.minutes}} minutes. The sign-in came from the address {{request.address}}.</p>',
      '<p>If that was not you, someone knows your password: change it now.</p>',
    ].join('\n'),
  },
  lockout_notice: {
    title: 'Lockout notice',
    description: 'Sent to an account’s owners when an email of the account is locked out, if its login settings ask for it.',
    recipient: 'The account’s owners',
    canDisable: true,
    smartcodes: {
      'lockout.email': { description: 'The email locked out', sample: 'ada@example.com' },
      'lockout.address': { description: 'The client address of the last failed attempt', sample: '192.0.2.10' },
      'lockout.minutes': { description: 'For how long at most attempts are refused', sample: '30' },
    },
    required: ['lockout.email'],
    subject: 'Tern: sign-in to {{lockout.email}} locked after failed attempts',
    body: [
      '<p>Hello,</p>',
      '<p>Too many failed sign-ins to <b>{{lockout.email}}</b> (the last from the address {{lockout.address}}): further attempts are refused for up to {{lockout.minutes}} minutes.</p>',
      '<p>The auth log of your account lists every attempt.</p>',
    ].join('\n'),
  },
  magic_link: {
    title: 'Sign-in link',
    description: 'Sent when a user asks the sign-in page to email a sign-in link, if the account lets its users sign in so.',
    recipient: 'The user signing in',
    canDisable: false,
    smartcodes: {
      'link.url': { description: 'The link that signs in (once)', sample: 'https://dash.example.com/magic-link?token=sample' },
      'link.minutes': { description: 'How many minutes it works', sample: '15' },
      'user.email': { description: "The user's email", sample: 'ada@example.com' },
      'request.address': { description: 'The client address the request came from', sample: '192.0.2.10' },
    },
    required: ['link.url'],
    subject: 'Your Tern sign-in link',
    body: [
      '<p>Hello,</p>',
      '<p>Someone asked to sign in to Tern as <b>{{user.email}}</b> (from the address {{request.address}}).</p>',
      '<p>Sign in here: <a href="{{link.url}}">{{link.url}}</a></p>',
      '<p>The link works once, for {{link.minutes}} minutes.</p>',
      '<p>If you did not ask for this, ignore this mail: nobody can sign in without opening the link.</p>',
    ].join('\n'),
  },
  platform_invitation: {
    title: 'Platform invitation',
    description: 'Sent when an operator invites the owner of a new client account.',
    recipient: 'The invited address (the new account’s owner)',
    canDisable: false,
    smartcodes: {
      'invitation.url': { description: 'The link that accepts the invitation', sample: 'https://dash.example.com/accept-invitation?token=sample' },
      'invitation.expires_at': EXPIRY,
      'account.name': { description: 'The account offered', sample: 'Acme' },
      'account.credits': { description: 'The credits the account starts with', sample: '500' },
      'account.starts_with': {
        description: '“It starts with N credits.” when it is given credits, else nothing',
        sample: 'It starts with 500 credits.',
      },
    },
    required: ['invitation.url'],
    subject: 'Your Tern account {{account.name}} is ready to open',
    body: [
      '<p>Hello,</p>',
      '<p>You are invited to open the account <b>{{account.name}}</b> on Tern, as its owner. {{account.starts_with}}</p>',
      '<p><a href="{{invitation.url}}">Accept the invitation and choose your password</a></p>',
      '<p>The link works once, until {{invitation.expires_at}}.</p>',
    ].join('\n'),
  },
  dns_instructions: {
    title: 'DNS records',
    description: 'Sent when a user asks Tern to mail a domain’s DNS records to whoever runs its zone.',
    recipient: 'The address the user gave',
    canDisable: false,
    smartcodes: {
      'dns.records': {
        description: 'The records to publish, one after the other, each with its type, name, priority and value (put it in <pre>)',
        sample: '1. TXT record\n   Name:    tern._domainkey.example.com  (in the zone: tern._domainkey)\n   Value:   v=DKIM1; k=rsa; p=MIIB…',
      },
      'domain.name': { description: 'The domain', sample: 'example.com' },
      'requester.name': { description: 'Who asked: their name and email, or their email', sample: 'Ada Lovelace (ada@example.com)' },
    },
    required: ['dns.records'],
    subject: 'DNS records for {{domain.name}}',
    body: [
      '<p>Hello,</p>',
      '<p>{{requester.name}} asked Tern to send you the DNS records that let <b>{{domain.name}}</b> send mail through Tern.',
      'Please add these records to the DNS zone of {{domain.name}}:</p>',
      '<pre>{{dns.records}}</pre>',
      '<p>Once they are published, Tern finds them and verifies the domain on its own.</p>',
    ].join('\n'),
  },
  low_balance: {
    title: 'Low credit balance',
    description: 'Sent to an account’s owners when the credits that pay for its mail fall below the alert threshold.',
    recipient: 'The account’s owners',
    canDisable: true,
    smartcodes: {
      'credits.balance': { description: 'The credits left', sample: '42' },
      'credits.threshold': { description: 'The alert threshold', sample: '100' },
      'credits.whose': { description: 'Whose credits: “your account Acme” or “the team Acme”', sample: 'your account Acme' },
      'team.name': { description: 'The account or team that pays', sample: 'Acme' },
    },
    required: ['credits.balance'],
    subject: 'Low credit balance: {{credits.balance}} left',
    body: [
      '<p>The credits of {{credits.whose}} are running low: <strong>{{credits.balance}}</strong> left (the alert threshold is {{credits.threshold}}).</p>',
      '<p>Mail is refused once they run out; add credits to keep sending.</p>',
    ].join('\n'),
  },
  support_response: {
    title: 'Support response',
    description: 'Sent to a ticket’s opener when an operator answers it.',
    recipient: 'The ticket’s opener',
    canDisable: true,
    smartcodes: {
      'ticket.id': { description: 'The ticket’s number', sample: '17' },
      'ticket.title': { description: 'The ticket’s title', sample: 'Bounces from one provider' },
      'ticket.url': {
        description: 'The ticket’s page (empty when the dashboard’s public URL is not configured: wrap it in {{#ticket.url}}…{{/ticket.url}})',
        sample: 'https://dash.example.com/support/tickets/17',
      },
      'response.author': { description: 'The operator who answered, by name', sample: 'Grace Hopper' },
      'response.content': { description: 'The response, as written', sample: 'Their server says the address is gone.' },
    },
    required: ['response.content'],
    subject: 'Re: [Ticket #{{ticket.id}}] {{ticket.title}}',
    body: [
      '<p>{{response.author}} answered your ticket “{{ticket.title}}”:</p>',
      '<blockquote>{{response.content}}</blockquote>',
      '{{#ticket.url}}<p>Read it and reply: <a href="{{ticket.url}}">{{ticket.url}}</a></p>{{/ticket.url}}',
    ].join('\n'),
  },
};

export const isEmailId = (value: string): value is EmailId => (EMAIL_IDS as readonly string[]).includes(value);

export const defaultTemplate = (id: EmailId): EmailTemplate => ({ subject: EMAILS[id].subject, body: EMAILS[id].body, enabled: true });

const SMARTCODE = /\{\{\s*([a-z_]+(?:\.[a-z_]+)*)\s*\}\}/g;
/** `{{#code}}…{{/code}}`: what is between is kept only when the smartcode's value is not empty (a link that may
 * not exist, as the ticket's page without a configured public URL). */
const SECTION = /\{\{#([a-z_]+(?:\.[a-z_]+)*)\}\}([\s\S]*?)\{\{\/\1\}\}/g;
const SECTION_MARK = /\{\{[#/]([a-z_]+(?:\.[a-z_]+)*)\}\}/g;

/** The smartcodes a text uses (as values or as sections), each once, in order. */
export const smartcodesIn = (text: string): string[] => [...new Set([...text.matchAll(SMARTCODE), ...text.matchAll(SECTION_MARK)].map((m) => m[1]!))];

/** What is wrong with an edited template: required smartcodes left out of the body, unknown ones anywhere. */
export function templateProblems(id: EmailId, t: Pick<EmailTemplate, 'subject' | 'body'>): { missing: string[]; unknown: string[] } {
  const offered = EMAILS[id].smartcodes;
  const used = smartcodesIn(`${t.subject}\n${t.body}`);
  const inBody = new Set(smartcodesIn(t.body));
  return { missing: EMAILS[id].required.filter((code) => !inBody.has(code)), unknown: used.filter((code) => !(code in offered)) };
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/** Whether a body is written in WordPress blocks (`<!-- wp:paragraph -->…`): it is then rendered from its blocks
 * (core/blocks/), else as the HTML it is. */
export const isBlockMarkup = (body: string): boolean => /<!--\s+wp:[a-z]/.test(body);

/** `text` with its sections kept or dropped by their smartcodes' values (nothing is put in: safe on any text). */
export const keepSections = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(SECTION, (_, code: string, inner: string) => (values[code] ? inner : ''));

/** `text` with every smartcode replaced by its value passed through `encode`. */
export const fillSmartcodes = (text: string, values: Readonly<Record<string, string>>, encode: (value: string) => string): string =>
  text.replace(SMARTCODE, (_, code: string) => encode(values[code] ?? ''));

/** A value as it goes into HTML: escaped, its lines kept (a response, the DNS records) as in the text part. */
export const htmlValue = (value: string): string => escapeHtml(value).replace(/\r?\n/g, '<br>');

/** The subject with its values, as typed (it is a header, not HTML), on one line. */
export const fillSubject = (subject: string, values: Readonly<Record<string, string>>): string =>
  fillSmartcodes(keepSections(subject, values), values, (v) => v)
    .replace(/[\r\n]+/g, ' ')
    .trim();

/** The text part of a mail, made from its HTML so the two never say different things. */
export function textPartOf(html: string): string {
  const text = convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkIfSameAsText: true, linkBrackets: false } },
      { selector: 'img', format: 'skip' },
      { selector: 'hr', format: 'skip' },
      // A heading says a value as it was typed (a team's name), not shouted.
      ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
  // A spacer's or a separator's cell (`&nbsp;`) is no line of text.
  return `${text.replace(/^[ \u00a0]+$/gm, '').replace(/\n{3,}/g, '\n\n')}\n`;
}

/** `values` of every smartcode the email offers (a preview passes the samples). */
export function renderEmail(t: Pick<EmailTemplate, 'subject' | 'body'>, layout: EmailLayout, values: Readonly<Record<string, string>>): RenderedEmail {
  const subject = fillSubject(t.subject, values);
  const body = fillSmartcodes(keepSections(t.body, values), values, htmlValue);
  const e = escapeHtml;
  const logo = layout.logoUrl === null ? '' : `<p><img src="${e(layout.logoUrl)}" alt="" style="max-height:48px"></p>\n`;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<style>a{color:${layout.primaryColor}}</style></head>`,
    `<body style="font-family:system-ui,sans-serif;line-height:1.5;border-top:4px solid ${layout.primaryColor};padding-top:8px">`,
    `${logo}${body}${footerHtml(layout)}`,
    '</body></html>',
  ].join('\n');
  return { subject, html, text: textPartOf(`${body}${footerHtml(layout)}`) };
}

/** The layout's footer under a rule; '' when there is none. */
export const footerHtml = (layout: EmailLayout): string =>
  layout.footer === ''
    ? ''
    : `\n<hr style="border:0;border-top:1px solid #ddd">\n<p style="color:#666;font-size:0.9em">${escapeHtml(layout.footer).replace(/\n/g, '<br>')}</p>`;
