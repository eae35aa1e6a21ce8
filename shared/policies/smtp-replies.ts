// What an SMTP reply means, as data: the ordered rules of config/smtp-replies.json (delivered, deferred or
// bounced, hard or soft, and why), read, validated, compiled and frozen once by loadPolicies (index.ts) and
// handed to the MTA; mta/replies/classify.ts applies them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { projectPath } from '../paths.js';
import { loadPolicy } from '../policy-file.js';

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
