// The send request of the specification, validated field by field into the sending error shape
// ({field: {code: text}}), then turned into a MIME message by nodemailer's composer.
import { Type, type Static } from '@sinclair/typebox';
import addressparser from 'nodemailer/lib/addressparser';
import { isValidEmail } from '../../../shared/email-address.js';

export const MAX_RECIPIENTS_PER_FIELD = 50;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Headers a client may not set: the composer, the envelope or the signer owns them. */
export const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'dkim-signature',
  'return-path',
  'sender',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
]);

const Address = Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) });

/** For the OpenAPI document; validation below gives the specification's own error codes. */
export const SendRequestSchema = Type.Object({
  from: Address,
  to: Type.Array(Address, { minItems: 1, maxItems: MAX_RECIPIENTS_PER_FIELD }),
  subject: Type.String({ minLength: 1 }),
  html: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  cc: Type.Optional(Type.Array(Address, { maxItems: MAX_RECIPIENTS_PER_FIELD })),
  bcc: Type.Optional(Type.Array(Address, { maxItems: MAX_RECIPIENTS_PER_FIELD })),
  reply_to: Type.Optional(Type.Union([Address, Type.String({ description: 'Name <email>' })])),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  attachments: Type.Optional(Type.Array(Type.Object({ name: Type.String(), type: Type.String(), content: Type.String({ contentEncoding: 'base64' }) }))),
  api_key: Type.Optional(Type.String({ description: 'A sending key, when not sent in the Authorization header' })),
});

export type SendRequestBody = Static<typeof SendRequestSchema>;

export interface MailAddress {
  email: string;
  name: string;
}

export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface SendRequest {
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  bcc: MailAddress[];
  subject: string;
  html?: string;
  text?: string;
  replyTo: MailAddress | null;
  headers: Record<string, string>;
  attachments: Attachment[];
}

export type FieldErrors = Record<string, Record<string, string>>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasLineBreak = (s: string): boolean => /[\r\n]/.test(s);

class Collector {
  readonly errors: FieldErrors = {};
  add(field: string, code: string, text: string): void {
    (this.errors[field] ??= {})[code] = text;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}

function address(value: unknown, field: string, c: Collector): MailAddress | null {
  if (!isObject(value) || typeof value.email !== 'string') {
    c.add(field, 'invalid', `${field} must be an object with an email`);
    return null;
  }
  const name = value.name === undefined ? '' : value.name;
  if (typeof name !== 'string' || hasLineBreak(name)) {
    c.add(field, 'invalid', `${field}.name must be a string without line breaks`);
    return null;
  }
  const email = value.email.trim();
  if (!isValidEmail(email)) {
    c.add(field, 'invalid_email', `${email || '(empty)'} is not a valid email address`);
    return null;
  }
  return { email, name };
}

function addressList(value: unknown, field: string, c: Collector, required: boolean): MailAddress[] {
  if (value === undefined || value === null) {
    if (required) c.add(field, 'required', `${field} is required`);
    return [];
  }
  if (!Array.isArray(value)) {
    c.add(field, 'invalid', `${field} must be an array of {email, name}`);
    return [];
  }
  if (required && value.length === 0) c.add(field, 'required', `${field} needs at least one recipient`);
  if (value.length > MAX_RECIPIENTS_PER_FIELD) {
    c.add(field, 'max_limit', `${field} has more than ${MAX_RECIPIENTS_PER_FIELD} recipients`);
    return [];
  }
  return value.map((v, i) => address(v, `${field}[${i}]`, c)).filter((a): a is MailAddress => a !== null);
}

function replyTo(value: unknown, c: Collector): MailAddress | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    // Exactly one address: a list would silently lose every address after the first.
    const list = addressparser(value) as Array<{ name: string; address?: string }>;
    const parsed = list.length === 1 ? list[0] : undefined;
    if (!parsed?.address || !isValidEmail(parsed.address) || hasLineBreak(value)) {
      c.add('reply_to', 'invalid', 'reply_to must be {email, name} or "Name <email>"');
      return null;
    }
    return { email: parsed.address, name: parsed.name };
  }
  return address(value, 'reply_to', c);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,76}$/;

function headers(value: unknown, c: Collector): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    c.add('headers', 'invalid', 'headers must be an object of string names to string values');
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') c.add('headers', 'invalid', `header ${name} must have a string value`);
    else if (!HEADER_NAME.test(name) || hasLineBreak(v)) c.add('headers', 'invalid', `header ${JSON.stringify(name)} has an invalid name or a line break`);
    else if (RESERVED_HEADERS.has(name.toLowerCase())) c.add('headers', 'reserved', `header ${name} cannot be set; use the request's own fields`);
    else out[name] = v;
  }
  return out;
}

/**
 * Strict base64 (the standard alphabet), line breaks and spaces allowed as in MIME. Buffer.from
 * silently skips what it cannot decode, so a corrupt file would otherwise be sent as a shorter one.
 * Padding may be left out, but a lone last character or padding in the wrong place is refused.
 */
function isBase64(text: string): boolean {
  const s = text.replace(/[ \t\r\n]+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return false;
  const padded = s.endsWith('=');
  return padded ? s.length % 4 === 0 : s.length % 4 !== 1;
}

function attachments(value: unknown, c: Collector): Attachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    c.add('attachments', 'invalid', 'attachments must be an array of {name, type, content}');
    return [];
  }
  const out: Attachment[] = [];
  let total = 0;
  for (const [i, a] of value.entries()) {
    if (!isObject(a) || typeof a.name !== 'string' || typeof a.type !== 'string' || typeof a.content !== 'string') {
      c.add('attachments', 'invalid', `attachments[${i}] needs name, type and content (base64) as strings`);
      continue;
    }
    if (!isBase64(a.content) || hasLineBreak(a.name) || hasLineBreak(a.type) || !/^[\w.+-]+\/[\w.+-]+$/.test(a.type)) {
      c.add('attachments', 'invalid', `attachments[${i}] has an invalid name, MIME type or base64 content`);
      continue;
    }
    const content = Buffer.from(a.content, 'base64');
    total += content.length;
    out.push({ filename: a.name, contentType: a.type, content });
  }
  if (total > MAX_ATTACHMENT_BYTES) c.add('attachments', 'max_size', 'attachments exceed 10 MB in total');
  return out;
}

function subjectOf(value: unknown, c: Collector): string {
  if (value === undefined || value === null || value === '') {
    c.add('subject', 'required', 'subject is required');
    return '';
  }
  if (typeof value !== 'string') c.add('subject', 'invalid', 'subject must be a string');
  else if (hasLineBreak(value)) c.add('subject', 'invalid', 'subject must not contain line breaks');
  else return value;
  return '';
}

function content(body: Json, c: Collector): { html?: string; text?: string } {
  const html = body.html;
  const text = body.text;
  if (html !== undefined && typeof html !== 'string') c.add('html', 'invalid', 'html must be a string');
  if (text !== undefined && typeof text !== 'string') c.add('text', 'invalid', 'text must be a string');
  const out = { html: typeof html === 'string' && html !== '' ? html : undefined, text: typeof text === 'string' && text !== '' ? text : undefined };
  if (!out.html && !out.text) c.add('content', 'required', 'html or text is required');
  return out;
}

/** Validates one send request; every problem is reported at once. */
export function parseSendRequest(body: unknown): { ok: true; request: SendRequest } | { ok: false; errors: FieldErrors } {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: { invalid: 'the request body must be a JSON object' } } };
  const from = body.from === undefined ? (c.add('from', 'required', 'from is required'), null) : address(body.from, 'from', c);
  const request: SendRequest = {
    from: from ?? { email: '', name: '' },
    to: addressList(body.to, 'to', c, true),
    cc: addressList(body.cc, 'cc', c, false),
    bcc: addressList(body.bcc, 'bcc', c, false),
    subject: subjectOf(body.subject, c),
    ...content(body, c),
    replyTo: replyTo(body.reply_to, c),
    headers: headers(body.headers, c),
    attachments: attachments(body.attachments, c),
  };
  return c.empty ? { ok: true, request } : { ok: false, errors: c.errors };
}
