// What an SMTP reply means: delivered, deferred or bounced (hard or soft), and why. The only place that decides,
// by the rules the MTA was handed (shared/policies/smtp-replies.ts loads and validates them once).
import type { RemoteReply, ReplyClass, ReplyResult, ReplyRules } from '../../shared/policies/smtp-replies.js';

export type Classification = { result: ReplyResult; class: ReplyClass; hard: boolean; rule: string; reason: string };

export type Outcome =
  { kind: 'delivered'; reply: string } | { kind: 'deferred'; reply: string; class: ReplyClass } | { kind: 'bounced'; reply: string; class: ReplyClass; hard: boolean };

// ---- classification ----------------------------------------------------------------------------------------

export function classifyReply(reply: RemoteReply, rules: ReplyRules): Classification {
  const normalized: RemoteReply = { code: reply.code, enhanced: reply.enhanced?.trim(), text: reply.text.trim() };
  const hit = rules.rules.find((r) => r.test(normalized));
  // Unreachable with a validated file (its last rule matches everything); kept for the type checker.
  if (!hit) throw new Error(`no SMTP reply rule matched in ${rules.file}`);
  const { id, result, hard, reason } = hit.rule;
  return { result, class: hit.rule.class, hard, rule: id, reason };
}

export function outcomeOf(reply: string | RemoteReply, rules: ReplyRules): Outcome {
  const parsed = typeof reply === 'string' ? parseReply(reply) : reply;
  const raw = typeof reply === 'string' ? reply.trim() : formatReply(reply);
  const c = classifyReply(parsed, rules);
  if (c.result === 'delivered') return { kind: 'delivered', reply: raw };
  if (c.result === 'deferred') return { kind: 'deferred', reply: raw, class: c.class };
  return { kind: 'bounced', reply: raw, class: c.class, hard: c.hard };
}

// ---- parsing -----------------------------------------------------------------------------------------------

const REPLY_LINE = /^([1-5]\d\d)(?:[ -]|$)/;
const ENHANCED = /^([245]\.\d{1,3}\.\d{1,3})\b(?!\.\d)/;
// DSN Diagnostic-Code: "smtp; 550 ..." or "X-Postfix; ...", optionally with its field name still in front.
const DIAGNOSTIC_PREFIX = /^(?:diagnostic-code:\s*)?(?:smtp|x-[\w-]+)\s*;\s*/i;
// Postfix and others quote the remote reply inside prose: "host mx[1.2.3.4] said: 550 5.1.1 ...".
const SAID = /\bsaid:\s*(?=[1-5]\d\d[ -])/i;
const IN_REPLY_TO = /\s*\(in reply to [^)]*\)\s*$/i;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function stripPreamble(raw: string): string {
  const text = raw.trim().replace(DIAGNOSTIC_PREFIX, '');
  if (REPLY_LINE.test(text)) return text;
  const said = SAID.exec(text);
  return said ? text.slice(said.index + said[0].length) : text;
}

/** Removes the "550-5.1.1 " markers a flattened multi-line reply keeps between its lines. */
function dropInlineMarkers(text: string, code: number, enhanced: string | undefined): string {
  const status = enhanced ? `(?:${escapeRegex(enhanced)}\\s+)?` : '';
  let out = text.replace(new RegExp(`(^|\\s)${code}-${status}`, 'g'), '$1');
  if (enhanced) out = out.replace(new RegExp(`(^|\\s)${code} ${escapeRegex(enhanced)}(?=\\s|$)`, 'g'), '$1');
  return out;
}

/**
 * Reads a raw SMTP reply (one line or several, "550-5.1.1 ...\r\n550 5.1.1 ..."), a DSN Diagnostic-Code
 * ("smtp; 550 5.1.1 <x@y>: Recipient address rejected") or an error text with no reply (code 0).
 */
export function parseReply(raw: string): RemoteReply {
  const lines = stripPreamble(raw)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const first = REPLY_LINE.exec(lines[0] ?? '');
  if (!first) return { code: 0, text: lines.join(' ') };
  const code = Number(first[1]);
  let enhanced: string | undefined;
  const parts = lines.map((line) => {
    const m = REPLY_LINE.exec(line);
    if (!m || Number(m[1]) !== code) return line; // a folded continuation of the previous line
    let rest = line.slice(m[0].length).trimStart();
    const status = ENHANCED.exec(rest);
    if (status) {
      enhanced ??= status[1];
      rest = rest.slice(status[0].length).trimStart();
    }
    return rest;
  });
  const text = dropInlineMarkers(parts.join(' '), code, enhanced).replace(/\s+/g, ' ').replace(IN_REPLY_TO, '').trim();
  return enhanced === undefined ? { code, text } : { code, enhanced, text };
}

export function formatReply(reply: RemoteReply): string {
  if (reply.code === 0) return reply.text;
  return [String(reply.code), reply.enhanced, reply.text].filter((p) => p !== undefined && p !== '').join(' ');
}

const STATUS_ONLY = /^([245])\.\d{1,3}\.\d{1,3}$/;
/** The basic code a bare RFC 3463 status stands for, when a DSN carries no SMTP reply. */
const CODE_FOR_STATUS_CLASS: Record<string, number> = { '2': 250, '4': 451, '5': 554 };

/**
 * The reply a DSN (RFC 3464) reports for one recipient: its Diagnostic-Code, completed by its Status when the
 * diagnostic has no enhanced code, or stands in for a reply when there is no SMTP diagnostic at all.
 */
export function replyFromDsn(fields: { status?: string; diagnosticCode?: string }): RemoteReply {
  const parsed = parseReply(fields.diagnosticCode ?? '');
  const status = STATUS_ONLY.exec(fields.status?.trim() ?? '');
  if (!status) return parsed;
  if (parsed.code !== 0) return parsed.enhanced ? parsed : { ...parsed, enhanced: status[0] };
  return { code: CODE_FOR_STATUS_CLASS[status[1]!]!, enhanced: status[0], text: parsed.text };
}

/**
 * The reply behind a delivery error: the server's reply when it gave one (nodemailer's `response`),
 * otherwise a code-0 reply whose text names the failure ("connect ECONNREFUSED 192.0.2.1:25").
 */
export function replyFromError(err: unknown): RemoteReply {
  if (typeof err !== 'object' || err === null) return { code: 0, text: String(err) };
  const { response, code, message } = err as { response?: unknown; code?: unknown; message?: unknown };
  if (typeof response === 'string' && REPLY_LINE.test(response.trim())) return parseReply(response);
  const msg = typeof message === 'string' ? message : '';
  const name = typeof code === 'string' && !msg.includes(code) ? code : '';
  return { code: 0, text: [name, msg].filter(Boolean).join(' ') };
}
