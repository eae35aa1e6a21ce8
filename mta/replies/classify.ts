// What an SMTP reply means: delivered, deferred or bounced (hard or soft), and why. The only place that decides;
// the decisions are the ordered rules of config/smtp-replies.json, loaded, validated and frozen once.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { projectPath } from '../../shared/paths.js';
import { loadPolicy } from '../../shared/policy-file.js';

export const REPLY_CLASSES = [
  'unknown_user',
  'mailbox_full',
  'mailbox_disabled',
  'domain_not_found',
  'policy',
  'spam_block',
  'reputation',
  'auth_failure',
  'rate_limited',
  'greylisted',
  'message_too_large',
  'content_rejected',
  'relay_denied',
  'temporary',
  'network',
  'protocol',
  'other',
] as const;
export const REPLY_RESULTS = ['delivered', 'deferred', 'bounced'] as const;

export type ReplyClass = (typeof REPLY_CLASSES)[number];
export type ReplyResult = (typeof REPLY_RESULTS)[number];

/** An SMTP reply; code 0 stands for no reply at all (DNS, TCP or TLS failure), described by the text. */
export type RemoteReply = { code: number; enhanced?: string; text: string };

export type Classification = { result: ReplyResult; class: ReplyClass; hard: boolean; rule: string; reason: string };

export type Outcome =
  { kind: 'delivered'; reply: string } | { kind: 'deferred'; reply: string; class: ReplyClass } | { kind: 'bounced'; reply: string; class: ReplyClass; hard: boolean };

// ---- the rules file ----------------------------------------------------------------------------------------

const OneOrMany = <T extends TSchema>(item: T) => Type.Union([item, Type.Array(item, { minItems: 1 })]);
// A plain enum, not a union of literals, so a wrong value gives one error listing the allowed ones.
const OneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const CodePattern = Type.String({ pattern: '^(0|[2-5][0-9x]{2})$' });
const EnhancedPattern = Type.String({ pattern: '^([245]|\\*)\\.([0-9]{1,3}|\\*)\\.([0-9]{1,3}|\\*)$' });

const RuleSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
    match: Type.Object(
      {
        code: Type.Optional(OneOrMany(CodePattern)),
        enhanced: Type.Optional(OneOrMany(EnhancedPattern)),
        text: Type.Optional(Type.String({ minLength: 1 })),
      },
      { additionalProperties: false },
    ),
    result: OneOf(REPLY_RESULTS),
    class: OneOf(REPLY_CLASSES),
    hard: Type.Boolean(),
    reason: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

const RulesFileSchema = Type.Object(
  {
    description: Type.Union([Type.String(), Type.Array(Type.String())]),
    rules: Type.Array(RuleSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type ReplyRule = Static<typeof RuleSchema>;

type CompiledRule = { readonly rule: ReplyRule; readonly test: (reply: RemoteReply) => boolean };

/** A validated, frozen rule set. */
export type ReplyRules = { readonly file: string; readonly rules: readonly CompiledRule[] };

const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** "5xx" → /^5\d\d$/; "5.7.*" → /^5\.7\.\d{1,3}$/. */
const codeRegex = (pattern: string) => new RegExp(`^${pattern.replace(/x/g, '\\d')}$`);
const enhancedRegex = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('.')
      .map((part) => (part === '*' ? '\\d{1,3}' : part))
      .join('\\.')}$`,
  );

function compileRule(rule: ReplyRule): CompiledRule {
  const codes = listOf(rule.match.code).map(codeRegex);
  const statuses = listOf(rule.match.enhanced).map(enhancedRegex);
  const text = rule.match.text === undefined ? undefined : new RegExp(rule.match.text, 'i');
  const test = (reply: RemoteReply): boolean =>
    (codes.length === 0 || codes.some((re) => re.test(String(reply.code)))) &&
    (statuses.length === 0 || (reply.enhanced !== undefined && statuses.some((re) => re.test(reply.enhanced!)))) &&
    (text === undefined || text.test(reply.text));
  return { rule, test };
}

/** Which results a basic code class allows: nothing may bounce a transient reply or deliver a refused one. */
const ALLOWED_RESULTS: Record<string, readonly ReplyResult[]> = {
  '0': ['deferred', 'bounced'],
  '2': ['delivered'],
  '4': ['deferred'],
  // A 5xx may be deferred: RFC 5321 4.5.3.1.10 says "552 too many recipients" means 452.
  '5': ['bounced', 'deferred'],
};

function textProblem(source: string): string | undefined {
  try {
    // A pattern that matches the empty string matches every reply: almost certainly a stray "|".
    return new RegExp(source, 'i').test('') ? 'text matches the empty string, so it would match every reply' : undefined;
  } catch (err) {
    return `text is not a valid regular expression: ${(err as Error).message}`;
  }
}

function ruleProblems(rule: ReplyRule, index: number, last: boolean): string[] {
  const problems: string[] = [];
  const codes = listOf(rule.match.code);
  if (rule.match.text !== undefined) {
    const problem = textProblem(rule.match.text);
    if (problem) problems.push(problem);
  }
  if (rule.hard && rule.result !== 'bounced') problems.push(`hard is true but result is ${rule.result}: only a bounce can be hard`);
  if (last) {
    if (Object.keys(rule.match).length > 0) problems.push('the last rule must match every reply (empty "match")');
    if (rule.result !== 'deferred') problems.push('the last rule must defer: an unexpected reply is retried');
  } else if (codes.length === 0) {
    problems.push('"match.code" is required (only the last rule may omit it)');
  }
  for (const code of codes) {
    const allowed = ALLOWED_RESULTS[code[0]!] ?? [];
    if (!allowed.includes(rule.result)) problems.push(`result ${rule.result} contradicts code ${code}`);
  }
  return problems.map((p) => `rules[${index}] "${rule.id}": ${p}`);
}

function semanticProblems(rules: readonly ReplyRule[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  rules.forEach((rule, i) => {
    if (seen.has(rule.id)) problems.push(`rules[${i}]: duplicate id "${rule.id}"`);
    seen.add(rule.id);
    problems.push(...ruleProblems(rule, i, i === rules.length - 1));
  });
  return problems;
}

const DEFAULT_RULES_FILE = projectPath('config', 'smtp-replies.json');

/** Reads, validates and freezes a rules file; throws ConfigError naming the file and every problem found. */
export function loadReplyRules(file: string = DEFAULT_RULES_FILE): ReplyRules {
  return loadPolicy({
    what: 'SMTP reply rules',
    schema: RulesFileSchema,
    files: [file],
    check: (parsed) => semanticProblems(parsed.rules),
    build: (parsed) => ({ file, rules: parsed.rules.map(compileRule) }),
  });
}

let shipped: ReplyRules | undefined;

/** The shipped rules, loaded on first use; call at start-up to fail fast on a broken file. */
export function replyRules(): ReplyRules {
  shipped ??= loadReplyRules();
  return shipped;
}

// ---- classification ----------------------------------------------------------------------------------------

export function classifyReply(reply: RemoteReply, rules: ReplyRules = replyRules()): Classification {
  const normalized: RemoteReply = { code: reply.code, enhanced: reply.enhanced?.trim(), text: reply.text.trim() };
  const hit = rules.rules.find((r) => r.test(normalized));
  // Unreachable with a validated file (its last rule matches everything); kept for the type checker.
  if (!hit) throw new Error(`no SMTP reply rule matched in ${rules.file}`);
  const { id, result, hard, reason } = hit.rule;
  return { result, class: hit.rule.class, hard, rule: id, reason };
}

export function outcomeOf(reply: string | RemoteReply, rules: ReplyRules = replyRules()): Outcome {
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
