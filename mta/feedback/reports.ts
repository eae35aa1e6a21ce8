// What a report received on the MX port says, as pure functions over its bytes: an RFC 3464 DSN, a
// non-standard (plain-text) bounce notice, or an RFC 5965 ARF complaint. The parts are found by their
// content types, wherever they sit in the MIME tree; the machine-readable parts are read with a small
// field parser (RFC 5322 unfolding, one block per blank-line-separated group), never by regexes over the
// whole mail. Matching the report to a recipient and deciding hard or soft is the worker's job.
import { simpleParser, type Attachment, type ParsedMail, type SimpleParserOptions } from 'mailparser';
import { parseReply, replyFromDsn } from '../replies/classify.js';
import type { RemoteReply } from '../../shared/policies/smtp-replies.js';

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

/** One per-recipient block of a delivery-status part. */
export interface DsnRecipient {
  finalRecipient: string | null;
  originalRecipient: string | null;
  action: DsnAction | null;
  status: string | null;
  diagnosticCode: string | null;
}

/** Delivery to the recipient is over and failed. */
export interface BounceReport {
  kind: 'bounce';
  format: 'dsn' | 'text';
  action: 'failed';
  reply: RemoteReply;
  /** False when the failure is final but its condition temporary (a 4.x.x Status with Action failed). */
  permanent: boolean;
  status: string | null;
  finalRecipient: string | null;
  /** Every per-recipient block (one for a text bounce). */
  recipients: DsnRecipient[];
}

export interface ComplaintReport {
  kind: 'complaint';
  feedbackType: string;
  /** The VERP address of the original: its Return-Path, else the report's Original-Mail-From. */
  verp?: string;
  /** The original's Message-ID, with its angle brackets. */
  originalMessageId?: string;
  originalRcpt?: string;
  /** The reporter's User-Agent field. */
  reporter?: string;
}

/** A DSN that changes nothing: delivery is delayed, or the message was delivered or relayed. */
export interface DelayReport {
  kind: 'delay';
  action: Exclude<DsnAction, 'failed'>;
  status: string | null;
  finalRecipient: string | null;
}

export type ParsedReport = BounceReport | ComplaintReport | DelayReport | { kind: 'unknown'; reason: string };

// ---- fields ------------------------------------------------------------------------------------------------

export type Fields = Map<string, string[]>;

/** Header-style fields, unfolded, names lower-cased; a repeated field keeps every value in order. */
export function parseFields(block: string): Fields {
  const fields: Fields = new Map();
  let name: string | null = null;
  let value = '';
  const flush = () => {
    if (name !== null) fields.set(name, [...(fields.get(name) ?? []), value.trim()]);
    name = null;
  };
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && name !== null) {
      value += ` ${line.trim()}`;
      continue;
    }
    flush();
    const m = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    if (m) [name, value] = [m[1]!.toLowerCase(), m[2]!];
  }
  flush();
  return fields;
}

/** The groups of a delivery-status body: the per-message block, then one per recipient. */
export function fieldGroups(text: string): Fields[] {
  return text
    .split(/\r?\n(?:[ \t]*\r?\n)+/)
    .filter((block) => block.trim() !== '')
    .map(parseFields);
}

const field = (fields: Fields, name: string): string | null => fields.get(name)?.[0] || null;

/** "rfc822; <bob@example.com>" → "bob@example.com". */
export function addressField(value: string | null): string | null {
  if (!value) return null;
  const bare = value
    .replace(/^[\w.-]+\s*;\s*/, '')
    .replace(/\(.*?\)/g, '')
    .trim();
  const angled = /<([^<>]*)>/.exec(bare);
  const address = (angled ? angled[1]! : bare).trim();
  return address === '' ? null : address;
}

const STATUS = /^([245])\.\d{1,3}\.\d{1,3}/;
const ACTIONS: readonly DsnAction[] = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'];

function dsnRecipient(fields: Fields): DsnRecipient {
  const action = (field(fields, 'action') ?? '').toLowerCase().split(/[\s(]/)[0] as DsnAction;
  return {
    finalRecipient: addressField(field(fields, 'final-recipient')),
    originalRecipient: addressField(field(fields, 'original-recipient')),
    action: ACTIONS.includes(action) ? action : null,
    status: STATUS.exec(field(fields, 'status') ?? '')?.[0] ?? null,
    diagnosticCode: field(fields, 'diagnostic-code'),
  };
}

// ---- parts -------------------------------------------------------------------------------------------------

const DELIVERY_STATUS = ['message/delivery-status', 'message/global-delivery-status'];
const FEEDBACK_REPORT = ['message/feedback-report'];
const ORIGINAL = ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/rfc822-headers', 'text/rfc822'];

const partOf = (parsed: ParsedMail, types: readonly string[]): Attachment | undefined => parsed.attachments.find((a) => types.includes(a.contentType.toLowerCase()));

const textOf = (part: Attachment): string => part.content.toString('utf8');

/** The header fields of the attached original (a whole message or its headers alone). */
function originalHeaders(parsed: ParsedMail): Fields | null {
  const part = partOf(parsed, ORIGINAL);
  if (!part) return null;
  return parseFields(textOf(part).split(/\r?\n[ \t]*\r?\n/)[0] ?? '');
}

// ---- DSN ---------------------------------------------------------------------------------------------------

/**
 * The block that speaks for the report. A VERP return path names one envelope recipient, so several blocks
 * come from the receiver's own expansion (aliases, forwarding): the most severe one stands for it.
 */
function principal(blocks: readonly DsnRecipient[]): DsnRecipient | undefined {
  return blocks.find((b) => b.action === 'failed') ?? blocks.find((b) => b.action === 'delayed') ?? blocks.find((b) => b.action !== null);
}

export function parseDsn(deliveryStatus: string): ParsedReport {
  const blocks = fieldGroups(deliveryStatus)
    .filter((g) => g.has('action') || g.has('final-recipient'))
    .map(dsnRecipient);
  const main = principal(blocks);
  if (!main?.action) return { kind: 'unknown', reason: 'delivery-status part without a per-recipient Action' };
  if (main.action !== 'failed') return { kind: 'delay', action: main.action, status: main.status, finalRecipient: main.finalRecipient };
  const reply = replyFromDsn({ status: main.status ?? undefined, diagnosticCode: main.diagnosticCode ?? undefined });
  // The Status field is the DSN's own verdict; a diagnostic alone decides only when there is none.
  const permanent = main.status ? main.status.startsWith('5') : reply.code >= 500;
  return { kind: 'bounce', format: 'dsn', action: 'failed', reply, permanent, status: main.status, finalRecipient: main.finalRecipient, recipients: blocks };
}

// ---- ARF ---------------------------------------------------------------------------------------------------

/** RFC 5965 types that are a recipient's complaint; auth-failure (DMARC forensic) and not-spam are not. */
export const COMPLAINT_TYPES = ['abuse', 'fraud', 'virus', 'other'];

const isVerp = (address: string | null): address is string => address !== null && /^bounces\+[^@\s]+@[^@\s]+$/i.test(address);

function messageIdOf(original: Fields | null): string | undefined {
  const raw = original && field(original, 'message-id');
  if (!raw) return undefined;
  const inner = /<[^<>\s]+>/.exec(raw)?.[0];
  return inner ?? `<${raw.trim().replace(/^<|>$/g, '')}>`;
}

export function parseArf(feedbackReport: string, original: Fields | null): ParsedReport {
  const fb = parseFields(feedbackReport);
  const feedbackType = (field(fb, 'feedback-type') ?? '').toLowerCase();
  if (!feedbackType) return { kind: 'unknown', reason: 'feedback report without a Feedback-Type' };
  if (!COMPLAINT_TYPES.includes(feedbackType)) return { kind: 'unknown', reason: `feedback type ${feedbackType} is not a complaint` };
  const verp = [addressField(original && field(original, 'return-path')), addressField(field(fb, 'original-mail-from'))].find(isVerp);
  const rcpt =
    addressField(field(fb, 'original-rcpt-to')) ??
    addressField(original && field(original, 'x-hmxmroriginalrecipient')) ??
    addressField(original && field(original, 'to'));
  const report: ComplaintReport = { kind: 'complaint', feedbackType };
  const messageId = messageIdOf(original);
  const reporter = field(fb, 'user-agent');
  if (verp) report.verp = verp;
  if (messageId) report.originalMessageId = messageId;
  if (rcpt && rcpt.includes('@')) report.originalRcpt = rcpt;
  if (reporter) report.reporter = reporter;
  return report;
}

// ---- non-standard bounces ----------------------------------------------------------------------------------

// Where the notice ends and the copy of the original begins.
const ORIGINAL_MARKER = /^\s*-{2,}.*\b(?:copy of|original message|below this line|undelivered message|returned message|headers? of)|^(?:Return-Path|Received):/im;
// A reply quoted in prose: at the start of a line, or after "said:", "<<<", "returned '", "error:" and the like.
const REPLY_IN_TEXT = /(?:^|<<<|\bsaid:|\breturned\s*'|\bresponse:|\breply:|\berror:|[>)]:|;)\s*([45]\d\d)(?::?[ -]|:$|$)(.*)$/i;
const STATUS_IN_TEXT = /(?:^|[\s#(])([45]\.\d{1,3}\.\d{1,3})(?=[\s).,;:]|$)/;
const DELAY_WARNING =
  /\b(?:delivery (?:has been |is )?delayed|delayed (?:mail|delivery)|(?:will|shall) (?:continue|keep) (?:to )?(?:try|trying|attempt)|still (?:being )?(?:tried|retried|trying)|this is (?:only )?a warning|warning message only|no action is required|not yet been delivered)\b/i;
const ADDRESS_LINE = /^\s*<?([^\s<>@]+@[^\s<>@]+?)>?:?\s*$/;

export function noticeText(text: string): string {
  const cut = ORIGINAL_MARKER.exec(text);
  return cut ? text.slice(0, cut.index) : text;
}

/** The first SMTP reply quoted in the notice, with the lines of a multi-line reply that follow it. */
export function replyInText(notice: string): RemoteReply | null {
  const lines = notice.split(/\r?\n/).map((l) => l.trim());
  for (let i = 0; i < lines.length; i++) {
    const m = REPLY_IN_TEXT.exec(lines[i]!);
    if (!m) continue;
    const [, code, rest] = m as unknown as [string, string, string];
    const parts = [`${code} ${rest.trim()}`];
    // "550-5.1.1 ...\n550 5.1.1 ...": the continuation lines repeat the code.
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith(code); j++) parts.push(lines[j]!);
    return parseReply(parts.join('\n'));
  }
  const status = notice.split(/\r?\n/).find((l) => STATUS_IN_TEXT.test(l));
  return status ? replyFromDsn({ status: STATUS_IN_TEXT.exec(status)![1], diagnosticCode: status.trim() }) : null;
}

function recipientInText(notice: string, reply: RemoteReply): string | null {
  const line = notice.split(/\r?\n/).find((l) => ADDRESS_LINE.test(l));
  if (line) return ADDRESS_LINE.exec(line)![1]!;
  return /<?([^\s<>@]+@[^\s<>@]+?)>?(?=[\s.:;,]|$)/.exec(reply.text)?.[1] ?? null;
}

export function parseTextBounce(text: string, autoReply: boolean): ParsedReport {
  const notice = noticeText(text);
  if (DELAY_WARNING.test(notice)) return { kind: 'delay', action: 'delayed', status: null, finalRecipient: null };
  const reply = replyInText(notice);
  if (!reply) return { kind: 'unknown', reason: autoReply ? 'an automatic reply, not a bounce' : 'no SMTP reply or status code in the notice' };
  const finalRecipient = recipientInText(notice, reply);
  const status = reply.enhanced ?? null;
  const permanent = reply.code >= 500;
  const block: DsnRecipient = { finalRecipient, originalRecipient: null, action: 'failed', status, diagnosticCode: null };
  return { kind: 'bounce', format: 'text', action: 'failed', reply, permanent, status, finalRecipient, recipients: [block] };
}

// ---- entry point -------------------------------------------------------------------------------------------

// Delivery-status parts stay attachments (not folded into the text), and attached originals are kept whole
// rather than parsed into the tree, so their headers (Return-Path, Message-ID) can be read.
const PARSER_OPTIONS: SimpleParserOptions & { ignoreEmbedded: boolean } = {
  keepDeliveryStatus: true,
  ignoreEmbedded: true,
  skipHtmlToText: false,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
};

function reportType(parsed: ParsedMail): string | null {
  const ct = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (ct?.value?.toLowerCase() !== 'multipart/report') return null;
  return ct.params?.['report-type']?.toLowerCase() ?? '';
}

export async function parseReport(raw: Buffer): Promise<ParsedReport> {
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(raw, PARSER_OPTIONS);
  } catch (err) {
    return { kind: 'unknown', reason: `unparseable: ${(err as Error).message}` };
  }
  const status = partOf(parsed, DELIVERY_STATUS);
  if (status) return parseDsn(textOf(status));
  const feedback = partOf(parsed, FEEDBACK_REPORT);
  if (feedback) return parseArf(textOf(feedback), originalHeaders(parsed));
  const type = reportType(parsed);
  if (type === 'feedback-report') return { kind: 'unknown', reason: 'feedback report without a message/feedback-report part' };
  if (type !== null && type !== 'delivery-status') return { kind: 'unknown', reason: `report type ${type || '(none)'} is not handled` };
  // mailparser keeps an unstructured header as its text (an array of texts when it is repeated).
  const [autoSubmitted] = [parsed.headers.get('auto-submitted')].flat();
  return parseTextBounce(parsed.text ?? '', typeof autoSubmitted === 'string' && autoSubmitted.toLowerCase().startsWith('auto-replied'));
}
