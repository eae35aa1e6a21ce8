// The DMARC check of a team's domain, on demand: the record that governs it (discovery.ts), whether the mail Tern
// sends for it aligns under that record (DKIM d= the domain; the return path send.<domain>), and the record to
// publish next. Rate-limited per domain as the DNS check on demand is.
import type { Runtime } from '../../runtime/runtime.js';
import type { Team } from '../../domain/team.js';
import type { Domain } from '../../domain/sending-domain.js';
import { createResolver } from '../../dns.js';
import { RETURN_PATH_LABEL } from '../../dns-records.js';
import { organizationalDomain } from '../../domain-name.js';
import { done, notFound, type Managed } from '../management-refusals.js';
import { dnsCheckAllowed } from '../dns-check-limit.js';
import { discoverDmarc, type Discovery } from './discovery.js';
import { withPolicy, type AlignmentMode, type DmarcPolicy } from './record.js';

export interface Alignment {
  /** The identifier's domain: the DKIM signature's d=, or the return path's domain (SPF's). */
  domain: string;
  mode: AlignmentMode;
  aligned: boolean;
}

export interface Suggestion {
  /** Where to publish it (a TXT record). */
  name: string;
  record: string;
  reason: string;
}

export interface DmarcReport {
  domain: Domain;
  discovery: Discovery;
  /** The record found is the organizational domain's (the domain has none of its own). */
  inherited: boolean;
  /** The policy receivers apply to the domain's failing mail: p, or sp for a subdomain under an inherited record. */
  policy: DmarcPolicy | null;
  dkim: Alignment & { selector: string };
  returnPath: Alignment;
  /** Whether Tern's mail for the domain passes DMARC when it authenticates: either identifier aligns. */
  passes: boolean;
  suggestion: Suggestion | null;
}

/** Identifier alignment (RFC 7489 §3.1): strict wants the same name, relaxed the same organizational domain. */
export function aligns(mode: AlignmentMode, identifier: string, from: string): boolean {
  const [a, b] = [identifier.toLowerCase(), from.toLowerCase()];
  return mode === 's' ? a === b : organizationalDomain(a) === organizationalDomain(b);
}

const STRICTER: Readonly<Record<DmarcPolicy, { to: DmarcPolicy; reason: string } | null>> = {
  none: { to: 'quarantine', reason: 'p=none only monitors. Once the aggregate reports show your mail aligned, have failing mail quarantined.' },
  quarantine: { to: 'reject', reason: 'Once the reports show no legitimate mail quarantined, have failing mail rejected.' },
  reject: null,
};

const FIRST_REASON: Readonly<Record<'none' | 'several' | 'invalid', string>> = {
  none: 'No DMARC record: start by monitoring with p=none and aggregate reports sent to a mailbox you read.',
  several: 'Several DMARC records: receivers then apply none (RFC 7489 §6.6.3). Publish exactly one.',
  invalid: 'The DMARC record is invalid: receivers may apply none. Replace it with a valid one.',
};

/**
 * The record to publish next: a monitoring one without a usable record, else the next policy stricter than the
 * one applied. A subdomain governed by its organization's sp gets a record of its own (the organization's stays).
 */
function suggest(domain: Domain, discovery: Discovery, inherited: boolean): Suggestion | null {
  switch (discovery.status) {
    case 'lookup_failed':
      return null;
    case 'valid': {
      const next = STRICTER[inherited ? discovery.record.sp : discovery.record.p];
      if (!next) return null;
      if (!inherited) return { name: discovery.name, record: withPolicy(discovery.record, next.to), reason: next.reason };
      return { name: `_dmarc.${domain.name}`, record: withPolicy(discovery.record, next.to, ['sp']), reason: next.reason };
    }
    default:
      return { name: `_dmarc.${domain.name}`, record: `v=DMARC1; p=none; rua=mailto:dmarc@${domain.name}`, reason: FIRST_REASON[discovery.status] };
  }
}

/** The report for a domain from what discovery found; without a valid record, the default (relaxed) modes. */
export function dmarcReport(domain: Domain, discovery: Discovery, inherited: boolean): DmarcReport {
  const record = discovery.status === 'valid' ? discovery.record : null;
  const returnPathDomain = `${RETURN_PATH_LABEL}.${domain.name}`;
  const dkimMode = record?.adkim ?? 'r';
  const spfMode = record?.aspf ?? 'r';
  // Tern signs with d= the domain itself (delivery/dkim.ts), and bounces come back to send.<domain>.
  const dkim = { domain: domain.name, selector: domain.dkimSelector, mode: dkimMode, aligned: aligns(dkimMode, domain.name, domain.name) };
  const returnPath = { domain: returnPathDomain, mode: spfMode, aligned: aligns(spfMode, returnPathDomain, domain.name) };
  return {
    domain,
    discovery,
    inherited,
    policy: record ? (inherited ? record.sp : record.p) : null,
    dkim,
    returnPath,
    passes: dkim.aligned || returnPath.aligned,
    suggestion: suggest(domain, discovery, inherited),
  };
}

export class DmarcCheck {
  constructor(private readonly d: Pick<Runtime, 'config' | 'store' | 'redis'>) {}

  /** Reads the domain's DMARC record now (a read: nothing is recorded), at most verify.onDemand.limit times a window. */
  async check(team: Team, domainId: string): Promise<Managed<DmarcReport>> {
    const domain = await this.d.store.domains.get(domainId, team.id);
    if (!domain) return notFound('domain', 'Domain not found');
    const allowed = await dnsCheckAllowed(this.d, domain.id, 'dmarc');
    if (!allowed.ok) return allowed;
    const { discovery, inherited } = await discoverDmarc(createResolver(this.d.config.dnsServers), domain.name);
    return done(dmarcReport(domain, discovery, inherited));
  }
}
