// A team's sending domains: add one (its DKIM key pair generated, its DNS records derived), list, read,
// remove. Verification is automatic (verification/); checkNow runs the same DNS check on demand, rate-limited.
import type { Runtime } from '../runtime/runtime.js';
import type { Logger } from '../log.js';
import type { Domain } from '../domain/sending-domain.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { Team } from '../domain/team.js';
import { checkDomainName } from '../domain-name.js';
import { dkimRecordName, dnsRecordsFor, generateDkimKeyPair, MAX_DNS_NAME, type DomainDnsRecords } from '../dns-records.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';
import { checkDomainDns, type DomainCheck } from '../verification/domain-check.js';
import { createResolver } from '../dns.js';
import { dnsCheckAllowed } from './dns-check-limit.js';
import { WriteRates } from './write-rates.js';
import { accountIdOf } from '../domain/team.js';
import type { RateDecision } from '../rate-limit.js';

export type DomainManagementDeps = Pick<Runtime, 'config' | 'store' | 'redis' | 'secrets' | 'keyCache'>;

export interface RemovedDomain {
  domain: Domain;
  /** The records the owner published for Tern, `TYPE name`, to take out of the zone. */
  recordsToRemove: string[];
}

/** What a domain's owner reads while Tern's public host name is not a public name (the operator reads the setting's
 * name in `ternmail config check`, `ternmail status` and at start). */
export const RECORDS_UNAVAILABLE =
  'The DNS records cannot be shown yet: this Tern server’s public host name is not set up, and records pointing at it would not work. Ask the platform’s operator to set it; the domain cannot be verified until then.';

/** Names one bulk add may carry (the dashboard's POST /api/domains/bulk and its Domains page). */
export const BULK_ADD_MAX = 50;

/** One name of a bulk add and what adding it alone gave. */
export interface BulkAdded {
  name: string;
  added: Managed<Domain>;
}

/** A bulk add's results, name by name, and the domain-creation window's decision after its names took their places. */
export interface BulkAddition {
  results: BulkAdded[];
  rate: RateDecision;
}

export interface CheckedDomain {
  /** The domain as recorded after the check (verified when every record was found). */
  domain: Domain;
  check: DomainCheck;
}

export class DomainManagement {
  private readonly rates: WriteRates;

  constructor(private readonly d: DomainManagementDeps) {
    this.rates = new WriteRates(d);
  }

  list(team: Team, page: PageRequest): Promise<PageOf<Domain>> {
    return this.d.store.domains.list(team.id, page);
  }

  /** Every domain of the team (the account summary lists them all). */
  async all(team: Team): Promise<Domain[]> {
    return (await this.d.store.domains.list(team.id, { page: 1, perPage: 1000 })).rows;
  }

  async get(team: Team, id: string): Promise<Managed<Domain>> {
    const domain = await this.d.store.domains.get(id, team.id);
    return domain ? done(domain) : notFound('domain', 'Domain not found');
  }

  /** The records the domain must publish: DKIM, and the return path's MX and SPF. */
  dnsRecords(domain: Domain): DomainDnsRecords {
    return dnsRecordsFor(domain, this.d.config.publicHostname);
  }

  /** Why the records cannot be shown to be published now (the public host name is not a public name), in the
   * words of a domain's owner; null when they can. */
  recordsUnavailable(): string | null {
    return this.d.config.publicHostnameProblem === null ? null : RECORDS_UNAVAILABLE;
  }

  /** The records to publish, or null while recordsUnavailable() says why not. */
  publishableRecords(domain: Domain): DomainDnsRecords | null {
    return this.recordsUnavailable() === null ? this.dnsRecords(domain) : null;
  }

  /** Adds a draft domain. Its name must be a public domain no one uses yet; a subdomain needs credits. */
  async add(team: Team, rawName: string, log: Logger): Promise<Managed<Domain>> {
    const checked = checkDomainName(rawName);
    if (!checked.ok) return refuse({ kind: 'invalid_domain', message: `${JSON.stringify(rawName)} is not a valid public domain name: ${checked.reason}` });
    // The DKIM record's name must fit in DNS (253 characters), or the domain could never be verified.
    if (dkimRecordName(this.d.config.dkim.selector, checked.name).length > MAX_DNS_NAME) {
      return refuse({ kind: 'invalid_domain', message: `${checked.name} is too long: its DKIM record name would exceed ${MAX_DNS_NAME} characters` });
    }
    if (await this.d.store.domains.findByName(checked.name)) return refuse({ kind: 'domain_exists', name: checked.name });
    if (checked.isSubdomain && (await this.d.store.teams.payerBalance(team)) <= 0) return refuse({ kind: 'credits_required' });
    const keys = await generateDkimKeyPair(this.d.config.dkim.keyBits);
    const created = await this.d.store.domains.create({
      teamId: team.id,
      name: checked.name,
      dkimSelector: this.d.config.dkim.selector,
      dkimPublicKey: keys.publicKey,
      dkimPrivateKeyEnc: this.d.secrets.seal(keys.privateKeyPem),
    });
    if (created === 'exists') return refuse({ kind: 'domain_exists', name: checked.name });
    log.info({ domain: created.id, name: created.name, team: team.id }, 'domain added');
    return done(created);
  }

  /**
   * Adds each name as add() would, in order; one refused name does not stop the others. Each name counts as one
   * domain creation against the account's domain-creation window (the one a single add is counted in): the names
   * take their places first, before any key is made, and those past the limit are refused (rate_limited) in
   * their place. One after the other: a name given twice is then created once and refused once, deterministically.
   */
  async addAll(team: Team, names: readonly string[], log: Logger): Promise<Managed<BulkAddition>> {
    if (names.length === 0 || names.length > BULK_ADD_MAX) {
      return refuse({ kind: 'invalid_field', field: 'names', message: `Give 1 to ${BULK_ADD_MAX} domain names` });
    }
    const { granted, decision } = await this.rates.reserve(accountIdOf(team), 'domains', names.length);
    const pastLimit: Managed<Domain> = refuse({
      kind: 'rate_limited',
      message: `Domain creation is limited to ${decision.limit} domains a minute; retry in ${decision.resetS} s.`,
      retryAfterS: decision.resetS,
    });
    const results: BulkAdded[] = [];
    for (const [i, name] of names.entries()) results.push({ name, added: i < granted ? await this.add(team, name, log) : pastLimit });
    return done({ results, rate: decision });
  }

  /** The findings of the domain's last DNS check (automatic or on demand), or null before its first. */
  lastCheck(domain: Domain): DomainCheck | null {
    if (!domain.lastCheckResult) return null;
    try {
      const parsed = JSON.parse(domain.lastCheckResult) as Partial<DomainCheck>;
      // Findings recorded by an older shape lack a record: shown as no check rather than half of one.
      return parsed.dkim && parsed.spf && parsed.mx ? (parsed as DomainCheck) : null;
    } catch {
      return null;
    }
  }

  /** Removes a domain; sending keys limited to it could never send again, so they are revoked with it. */
  async remove(team: Team, id: string, log: Logger): Promise<Managed<RemovedDomain>> {
    const domain = await this.d.store.domains.get(id, team.id);
    if (!domain || !(await this.d.store.domains.remove(domain.id, team.id))) return notFound('domain', 'Domain not found');
    await this.d.keyCache.revoked(this.d.redis, await this.d.store.keys.revokeForDomain(domain.id), log);
    log.info({ domain: domain.id, name: domain.name, team: team.id }, 'domain removed');
    const records = this.dnsRecords(domain);
    const names = [records.dkim, ...records.spf].map((r) => `${r.type} ${r.name}.${domain.name}`);
    return done({ domain, recordsToRemove: [...new Set(names)] });
  }

  /**
   * Runs the automatic verifier's DNS check now and records its result, as a round of the verifier would
   * (the automatic check keeps running). At most verify.onDemand.limit checks per domain in any windowS seconds.
   */
  async checkNow(team: Team, id: string, log: Logger): Promise<Managed<CheckedDomain>> {
    const domain = await this.d.store.domains.get(id, team.id);
    if (!domain) return notFound('domain', 'Domain not found');
    const allowed = await dnsCheckAllowed(this.d, domain.id, 'verify');
    if (!allowed.ok) return allowed;
    return checkAndRecord(this.d, domain, log);
  }

  /** The domain a log filter names, by id or by name; another team's, or none, matches nothing. */
  async resolveFilter(team: Team, value: string): Promise<string | null> {
    const byId = await this.d.store.domains.get(value, team.id);
    const found = byId ?? (await this.d.store.domains.findByName(value));
    return found && found.teamId === team.id ? found.id : null;
  }
}

/**
 * The automatic verifier's DNS check of `domain`, run now and recorded as a round of the verifier would record it:
 * the dashboard's on-demand check (after its rate limit) and the host's `ternmail domain check` both run this.
 */
export async function checkAndRecord(d: Pick<DomainManagementDeps, 'store' | 'config'>, domain: Domain, log: Logger): Promise<Managed<CheckedDomain>> {
  const check = await checkDomainDns(domain, createResolver(d.config.dnsServers), d.config.publicHostname);
  const recorded = await d.store.domains.recordCheck(domain.id, {
    verified: check.verified,
    dmarcPolicy: check.dmarcPolicy,
    summary: check.summary,
    result: check,
  });
  if (!recorded) return notFound('domain', 'Domain not found');
  log.info({ domain: domain.id, name: domain.name, team: domain.teamId, verified: check.verified }, 'domain checked on demand');
  return done({ domain: recorded, check });
}
