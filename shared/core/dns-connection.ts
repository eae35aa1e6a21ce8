// A team's connection to a DNS hosting provider (Cloudflare today): its status, connecting with an API token
// (checked with the provider first, stored sealed, never shown again), publishing a domain's records in the
// zone that holds it, and disconnecting. The dashboard's /api-keys/verify-connect/<provider> routes call these.
import type { Config } from '../config.js';
import { RECORDS_UNAVAILABLE } from './domains.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secret-box.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import { DNS_PROVIDER_TITLES, type DnsConnection, type DnsProviderName } from '../domain/dns-connection.js';
import { dnsRecordsFor } from '../dns-records.js';
import type { DnsProvider, DnsProviders, ProviderFailure, RecordSpec } from './ports/dns-provider.js';
import { syncRecord, wantedRecords, type SyncedRecord } from './dns-record-sync.js';

export interface DnsConnectionDeps {
  config: Config;
  store: Store;
  secrets: SecretBox;
  /** Null in the MTA, which connects no DNS provider (the API process hands the core its adapters). */
  providers: DnsProviders | null;
}

export type DnsConnectionRefusal =
  /** The token, or another input, is not acceptable as given (nothing was sent to the provider). */
  | { kind: 'invalid_field'; field: 'api_token'; message: string }
  | { kind: 'not_connected'; provider: DnsProviderName; message: string }
  /** The domain is missing, or another team's: the two answer alike. */
  | { kind: 'not_found'; what: 'domain'; message: string }
  | { kind: 'zone_not_found'; provider: DnsProviderName; domain: string; message: string }
  /** The provider answered and refused (a bad or expired token, a missing permission): its own message. */
  | { kind: 'provider_refused'; provider: DnsProviderName; status: number; message: string }
  /** The provider could not be reached. */
  | { kind: 'provider_unavailable'; provider: DnsProviderName; message: string }
  /** Tern's public host name is not a public name: records pointing at it are not published (nothing sent). */
  | { kind: 'records_unavailable'; message: string };

export type DnsOutcome<T> = { ok: true; value: T } | { ok: false; refusal: DnsConnectionRefusal };

export type DnsConnectionStatus =
  | { provider: DnsProviderName; connected: false }
  | {
      provider: DnsProviderName;
      connected: true;
      /** When the team first connected the provider. */
      connectedSince: string;
      /** When its token was last given. */
      tokenUpdatedAt: string;
      tokenLast4: string;
      /** Up to ZONES_SHOWN zone names the token sees; null when the provider could not list them now. */
      zones: string[] | null;
      /** Why the zones could not be listed (the token revoked since, the provider down), else null. */
      zonesProblem: string | null;
    };

/** Whether the team is connected, from what Tern stored alone (no request to the provider). */
export type DnsConnectionLink = { connected: false } | { connected: true; tokenLast4: string; tokenUpdatedAt: string };

export interface PublishedRecords {
  provider: DnsProviderName;
  domain: { id: string; name: string };
  /** The zone that holds the domain. */
  zone: string;
  /** DKIM TXT, return-path MX, SPF TXT: each with what publishing did to it. */
  records: SyncedRecord[];
}

/** How many zone names a status shows: one page of the provider's list, no more requests. */
export const ZONES_SHOWN = 50;
/** Longer than any provider's token; a token goes into an HTTP header, so it is visible ASCII only. */
const TOKEN = /^[\x21-\x7e]{8,512}$/;

const ok = <T>(value: T): DnsOutcome<T> => ({ ok: true, value });
const refuse = <T = never>(refusal: DnsConnectionRefusal): DnsOutcome<T> => ({ ok: false, refusal });

function providerRefusal(provider: DnsProviderName, failure: ProviderFailure, doing: string): DnsConnectionRefusal {
  const title = DNS_PROVIDER_TITLES[provider];
  return failure.kind === 'refused'
    ? { kind: 'provider_refused', provider, status: failure.status, message: `${title} refused ${doing}: ${failure.message}` }
    : { kind: 'provider_unavailable', provider, message: `${title} could not be reached while ${doing}: ${failure.message}` };
}

export class DnsConnections {
  constructor(private readonly d: DnsConnectionDeps) {}

  /** Connected or not; when connected, since when, the token's last 4 characters and the zones it sees. */
  async status(team: Team, provider: DnsProviderName): Promise<DnsConnectionStatus> {
    const connection = await this.d.store.dnsConnections.get(team.id, provider);
    if (!connection) return { provider, connected: false };
    const zones = await this.open(connection).zones(ZONES_SHOWN);
    return {
      provider,
      connected: true,
      connectedSince: connection.createdAt,
      tokenUpdatedAt: connection.updatedAt,
      tokenLast4: connection.tokenLast4,
      zones: zones.ok ? zones.value.map((z) => z.name) : null,
      zonesProblem: zones.ok ? null : providerRefusal(provider, zones.failure, 'listing the zones').message,
    };
  }

  /** Connected or not, without asking the provider: a page that only needs to know shows it at no cost. */
  async link(team: Team, provider: DnsProviderName): Promise<DnsConnectionLink> {
    const connection = await this.d.store.dnsConnections.get(team.id, provider);
    return connection ? { connected: true, tokenLast4: connection.tokenLast4, tokenUpdatedAt: connection.updatedAt } : { connected: false };
  }

  /** Checks the token with the provider, then stores it sealed (replacing the team's previous one). A refused token stores nothing. */
  async connect(team: Team, provider: DnsProviderName, apiToken: string, log: Logger): Promise<DnsOutcome<DnsConnectionStatus>> {
    const title = DNS_PROVIDER_TITLES[provider];
    if (!TOKEN.test(apiToken)) {
      return refuse({ kind: 'invalid_field', field: 'api_token', message: `api_token must be a ${title} API token: 8 to 512 visible ASCII characters, no spaces` });
    }
    const checked = await this.opened(provider, apiToken).verifyToken();
    if (!checked.ok || !checked.value.active) {
      const refusal: DnsConnectionRefusal = checked.ok
        ? { kind: 'provider_refused', provider, status: 200, message: `${title} refused the token: it is ${checked.value.status}` }
        : providerRefusal(provider, checked.failure, 'the token');
      log.info({ team: team.id, provider, refusal: refusal.kind }, 'DNS provider connection refused');
      return refuse(refusal);
    }
    const saved = await this.d.store.dnsConnections.save({ teamId: team.id, provider, tokenEnc: this.d.secrets.seal(apiToken), tokenLast4: apiToken.slice(-4) });
    log.info({ team: team.id, provider, tokenLast4: saved.tokenLast4 }, 'DNS provider connected');
    return ok(await this.status(team, provider));
  }

  /** Creates or updates the domain's DKIM, return-path MX and SPF records in the zone that holds it. Running it again changes nothing. */
  async publish(team: Team, provider: DnsProviderName, domainId: string, log: Logger): Promise<DnsOutcome<PublishedRecords>> {
    const connection = await this.d.store.dnsConnections.get(team.id, provider);
    if (!connection) return refuse(this.notConnected(provider));
    const domain = await this.d.store.domains.get(domainId, team.id);
    if (!domain) return refuse({ kind: 'not_found', what: 'domain', message: 'Domain not found' });
    if (this.d.config.publicHostnameProblem !== null) return refuse({ kind: 'records_unavailable', message: RECORDS_UNAVAILABLE });
    const dns = this.open(connection);
    const zone = await dns.zoneOf(domain.name);
    if (!zone.ok) return refuse(providerRefusal(provider, zone.failure, `finding the zone of ${domain.name}`));
    if (!zone.value) {
      const message = `No ${DNS_PROVIDER_TITLES[provider]} zone visible to this token holds ${domain.name}`;
      return refuse({ kind: 'zone_not_found', provider, domain: domain.name, message });
    }
    const records: SyncedRecord[] = [];
    for (const want of wantedRecords(this.specsOf(domain), domain.dkimPublicKey, this.d.config.publicHostname)) {
      const synced = await syncRecord(dns, zone.value, want);
      if (!synced.ok) return refuse(providerRefusal(provider, synced.failure, `the ${want.spec.type} record at ${want.spec.name}`));
      records.push(synced.value);
    }
    const counts = Object.fromEntries(['created', 'updated', 'unchanged'].map((r) => [r, records.filter((x) => x.result === r).length]));
    log.info({ team: team.id, provider, domain: domain.id, zone: zone.value.name, ...counts }, 'DNS records published');
    return ok({ provider, domain: { id: domain.id, name: domain.name }, zone: zone.value.name, records });
  }

  /** Forgets the token. The records already published stay in the zone. */
  async disconnect(team: Team, provider: DnsProviderName, log: Logger): Promise<DnsOutcome<void>> {
    if (!(await this.d.store.dnsConnections.remove(team.id, provider))) return refuse(this.notConnected(provider));
    log.info({ team: team.id, provider }, 'DNS provider disconnected');
    return ok(undefined);
  }

  private open(connection: DnsConnection): DnsProvider {
    return this.opened(connection.provider, this.d.secrets.open(connection.tokenEnc));
  }

  private opened(provider: DnsProviderName, apiToken: string): DnsProvider {
    // A wiring mistake, not an outcome: only the API process serves the pages and routes that get here.
    if (this.d.providers === null) throw new Error('this process has no DNS providers (only the API process connects them)');
    return this.d.providers[provider](apiToken);
  }

  private notConnected(provider: DnsProviderName): DnsConnectionRefusal {
    return { kind: 'not_connected', provider, message: `This team has not connected ${DNS_PROVIDER_TITLES[provider]}` };
  }

  /** The records the product asks the domain to publish (dnsRecordsFor), as full names in the zone. */
  private specsOf(domain: Domain): { dkim: RecordSpec; mx: RecordSpec; spf: RecordSpec } {
    const shown = dnsRecordsFor(domain, this.d.config.publicHostname);
    const full = (name: string) => `${name}.${domain.name}`;
    const mx = shown.spf.find((r) => r.type === 'MX')!;
    const spf = shown.spf.find((r) => r.type === 'TXT')!;
    return {
      dkim: { type: 'TXT', name: full(shown.dkim.name), content: shown.dkim.content },
      mx: { type: 'MX', name: full(mx.name), content: mx.content, priority: Number(mx.priority) },
      spf: { type: 'TXT', name: full(spf.name), content: spf.content },
    };
  }
}
