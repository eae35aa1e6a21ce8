// One DNS check of a domain: are its DKIM, SPF and MX records published as Tern asked? Also reads
// the DMARC policy. Used by the automatic verifier and by `ternmail domain check`.
import type { Resolver } from 'node:dns/promises';
import { orEmpty } from '../dns.js';
import { bareHost, dkimCarriesKey, isSpf, recordTags as tags, RETURN_PATH_LABEL, spfIncludes } from '../dns-records.js';
import type { Domain } from '../domain/sending-domain.js';
import { publicHostnameProblem } from '../public-hostname.js';

export interface RecordCheck {
  name: string;
  ok: boolean;
  expected: string;
  found: string[];
  error?: string;
}

export interface DomainCheck {
  verified: boolean;
  dkim: RecordCheck;
  spf: RecordCheck;
  mx: RecordCheck;
  dmarcPolicy: string | null;
  summary: string;
}

const joinTxt = (chunks: string[][]): string[] => chunks.map((parts) => parts.join(''));

async function lookup<T>(name: string, expected: string, run: () => Promise<T[]>, judge: (found: T[]) => { ok: boolean; shown: string[] }): Promise<RecordCheck> {
  try {
    const { ok, shown } = judge(await orEmpty(run()));
    return { name, ok, expected, found: shown };
  } catch (err) {
    return { name, ok: false, expected, found: [], error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

/** One missing record for the reason shown to users; a failed lookup (SERVFAIL, timeout) says so, not "absent". */
const shortfall = (what: string, check: RecordCheck): string =>
  check.error ? `${what} at ${check.name} (DNS lookup failed: ${check.error})` : `${what} at ${check.name}`;

export async function checkDomainDns(domain: Domain, resolver: Resolver, publicHostname: string): Promise<DomainCheck> {
  const host = bareHost(publicHostname);
  // Records pointing at a name the Internet cannot reach prove nothing: no lookup, and never verified.
  if (publicHostnameProblem(host) !== null) return unusableHost(domain, host);
  const returnPath = `${RETURN_PATH_LABEL}.${domain.name}`;
  const dkimName = `${domain.dkimSelector}._domainkey.${domain.name}`;
  const [dkim, spf, mx, dmarc] = await Promise.all([
    lookup(
      dkimName,
      `p=${domain.dkimPublicKey}`,
      () => resolver.resolveTxt(dkimName),
      (found) => {
        const records = joinTxt(found);
        return { ok: records.some((r) => dkimCarriesKey(r, domain.dkimPublicKey)), shown: records };
      },
    ),
    lookup(
      returnPath,
      `include:${host}`,
      () => resolver.resolveTxt(returnPath),
      (found) => {
        const spfs = joinTxt(found).filter(isSpf);
        return { ok: spfs.length === 1 && spfIncludes(spfs[0]!, host), shown: spfs };
      },
    ),
    lookup(
      returnPath,
      host,
      () => resolver.resolveMx(returnPath),
      (found) => {
        const hosts = found.map((m) => bareHost(m.exchange));
        return { ok: hosts.includes(host), shown: hosts };
      },
    ),
    orEmpty(resolver.resolveTxt(`_dmarc.${domain.name}`)).catch(() => [] as string[][]),
  ]);
  const dmarcRecord = joinTxt(dmarc).find((r) => /^v=DMARC1/i.test(r));
  const verified = dkim.ok && spf.ok && mx.ok;
  const missing = [!dkim.ok && shortfall('DKIM TXT', dkim), !spf.ok && shortfall('SPF TXT', spf), !mx.ok && shortfall('MX', mx)].filter(Boolean);
  return {
    verified,
    dkim,
    spf,
    mx,
    dmarcPolicy: dmarcRecord ? (tags(dmarcRecord).get('p') ?? null) : null,
    summary: verified ? '' : `Waiting for DNS records not yet found as published: ${missing.join(', ')}`,
  };
}

/** The check of a domain while Tern's public host name is not a public one: every return-path record unusable. */
function unusableHost(domain: Domain, host: string): DomainCheck {
  const error = 'Tern’s public host name is not set up';
  const returnPath = `${RETURN_PATH_LABEL}.${domain.name}`;
  const record = (name: string, expected: string): RecordCheck => ({ name, ok: false, expected, found: [], error });
  return {
    verified: false,
    dkim: record(`${domain.dkimSelector}._domainkey.${domain.name}`, `p=${domain.dkimPublicKey}`),
    spf: record(returnPath, `include:${host}`),
    mx: record(returnPath, host),
    dmarcPolicy: domain.dmarcPolicy,
    summary: `Not checked: ${error}; ask the platform’s operator. No record can be verified until then.`,
  };
}
