// A DMARC record's tag list (RFC 7489 §6.3–6.4, the DKIM tag-value syntax): parsed into the tags the dashboard
// shows, with each problem named, and written back. No maintained npm parser fits (docs/decisions.md, "Dashboard
// DMARC check"); this is the one place the syntax is read.
export const POLICIES = ['none', 'quarantine', 'reject'] as const;
export type DmarcPolicy = (typeof POLICIES)[number];
export type AlignmentMode = 'r' | 's';

export interface DmarcRecord {
  p: DmarcPolicy;
  /** The subdomains' policy; p when the record has no sp. */
  sp: DmarcPolicy;
  pct: number;
  rua: string[];
  ruf: string[];
  adkim: AlignmentMode;
  aspf: AlignmentMode;
  fo: string[];
  /** The tags as written (names lower-cased), in order: what a suggested record keeps. */
  tags: ReadonlyArray<readonly [string, string]>;
}

export type ParsedRecord = { ok: true; record: DmarcRecord } | { ok: false; problems: string[] };

/** Whether a TXT string is a DMARC record at all (§6.6.3: the others at `_dmarc` are discarded). */
export const isDmarcRecord = (txt: string): boolean => /^v\s*=\s*DMARC1\s*(;|$)/i.test(txt.trim());

const POLICY_TEXT = POLICIES.join(', ');
/** A DMARC URI (§6.4): a URI with an optional size limit (`!10m`). */
const URI = /^([a-z][a-z0-9+.-]*:[^\s,!]+)(![0-9]+[kmgt]?)?$/i;

type Check = (value: string) => string | null;

const policyCheck: Check = (v) => ((POLICIES as readonly string[]).includes(v.toLowerCase()) ? null : `must be one of ${POLICY_TEXT}`);
const modeCheck: Check = (v) => (/^[rs]$/i.test(v) ? null : 'must be r (relaxed) or s (strict)');
const uriListCheck: Check = (v) => (v.split(',').every((u) => URI.test(u.trim())) ? null : 'must be a comma-separated list of URIs such as mailto:dmarc@example.com');

/** The tags this product reads, each with its rule; others are ignored, as §6.3 requires. */
const CHECKS: Readonly<Record<string, Check>> = {
  p: policyCheck,
  sp: policyCheck,
  pct: (v) => (/^\d{1,3}$/.test(v) && Number(v) <= 100 ? null : 'must be an integer from 0 to 100'),
  adkim: modeCheck,
  aspf: modeCheck,
  rua: uriListCheck,
  ruf: uriListCheck,
  fo: (v) => (v.split(':').every((o) => /^[01ds]$/i.test(o.trim())) ? null : 'must be a colon-separated list of 0, 1, d, s'),
  ri: (v) => (/^\d{1,10}$/.test(v) ? null : 'must be a number of seconds'),
  rf: (v) => (v.split(':').every((f) => /^[a-z0-9-]+$/i.test(f.trim())) ? null : 'must be a colon-separated list of report formats'),
};

/** `name=value` pairs, or the problem with the list's syntax. */
function tagList(text: string): { tags: Array<[string, string]>; problems: string[] } {
  const tags: Array<[string, string]> = [];
  const problems: string[] = [];
  for (const part of text.split(';')) {
    if (!part.trim()) continue;
    const at = part.indexOf('=');
    const name = at > 0 ? part.slice(0, at).trim().toLowerCase() : '';
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      problems.push(`"${part.trim()}" is not a tag=value pair`);
      continue;
    }
    // Duplicate tags make the whole list invalid (RFC 6376 §3.2, which DMARC's syntax follows).
    if (tags.some(([n]) => n === name)) problems.push(`the tag ${name} appears more than once`);
    tags.push([name, part.slice(at + 1).trim()]);
  }
  return { tags, problems };
}

const list = (value: string | undefined, sep: string): string[] => (value ? value.split(sep).map((s) => s.trim()) : []);

export function parseDmarcRecord(text: string): ParsedRecord {
  const { tags, problems } = tagList(text);
  if (tags[0]?.[0] !== 'v' || tags[0][1] !== 'DMARC1') problems.unshift('the record must begin with v=DMARC1');
  const value = new Map(tags);
  if (!value.has('p')) problems.push('the tag p (the policy) is missing');
  for (const [name, v] of tags) {
    const problem = CHECKS[name]?.(v);
    if (problem) problems.push(`${name}=${v}: ${problem}`);
  }
  if (problems.length) return { ok: false, problems };
  const p = value.get('p')!.toLowerCase() as DmarcPolicy;
  return {
    ok: true,
    record: {
      p,
      sp: (value.get('sp')?.toLowerCase() as DmarcPolicy | undefined) ?? p,
      pct: value.has('pct') ? Number(value.get('pct')) : 100,
      rua: list(value.get('rua'), ','),
      ruf: list(value.get('ruf'), ','),
      adkim: (value.get('adkim')?.toLowerCase() as AlignmentMode | undefined) ?? 'r',
      aspf: (value.get('aspf')?.toLowerCase() as AlignmentMode | undefined) ?? 'r',
      fo: value.has('fo') ? list(value.get('fo'), ':') : ['0'],
      tags,
    },
  };
}

/** The record's text with `p` set to `policy` (right after v), every other tag but those `dropped` kept as written. */
export function withPolicy(record: DmarcRecord, policy: DmarcPolicy, dropped: readonly string[] = []): string {
  const rest = record.tags.filter(([name]) => name !== 'v' && name !== 'p' && !dropped.includes(name)).map(([name, v]) => `${name}=${v}`);
  return ['v=DMARC1', `p=${policy}`, ...rest].join('; ');
}
