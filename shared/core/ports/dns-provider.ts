// What Tern needs from a DNS hosting provider, whichever it is: check an API token, find the zone that holds
// a domain name, and list, create, update and delete records in it. Outcomes are values: a provider that
// refuses (bad token, missing permission, bad record) or cannot be reached answers a failure, never throws.
import type { DnsProviderName } from '../../domain/dns-connection.js';

/** The record types Tern publishes. */
export type ProviderRecordType = 'TXT' | 'MX';

export interface DnsZone {
  id: string;
  /** The zone's apex, lower case, without the final dot. */
  name: string;
}

/** A record as Tern wants it: the full name (no final dot), the content as a zone editor takes it. */
export interface RecordSpec {
  type: ProviderRecordType;
  name: string;
  content: string;
  /** MX only. */
  priority?: number;
}

/** A record the provider holds. TXT content is as the provider shows it (possibly quoted and split). */
export interface ProviderRecord extends RecordSpec {
  id: string;
}

export type ProviderFailure =
  /** The provider answered and refused: its message, as it gave it. */
  | { kind: 'refused'; status: number; message: string }
  /** No answer (network, timeout) or an answer that is not the provider's API. */
  | { kind: 'unreachable'; message: string };

export type ProviderResult<T> = { ok: true; value: T } | { ok: false; failure: ProviderFailure };

export interface TokenCheck {
  /** False when the provider knows the token but it cannot be used (disabled, expired). */
  active: boolean;
  /** What the provider says about the token's state (`active`, `disabled`, `expired`, ...). */
  status: string;
}

/** One provider account, reached with one API token. */
export interface DnsProvider {
  readonly name: DnsProviderName;
  verifyToken(): Promise<ProviderResult<TokenCheck>>;
  /** The zone holding `domainName` (itself or its closest parent the token can see), or null when none. */
  zoneOf(domainName: string): Promise<ProviderResult<DnsZone | null>>;
  /** Zones the token can see, at most `limit`. */
  zones(limit: number): Promise<ProviderResult<DnsZone[]>>;
  /** The records of one name and type in a zone. */
  records(zone: DnsZone, type: ProviderRecordType, name: string): Promise<ProviderResult<ProviderRecord[]>>;
  create(zone: DnsZone, record: RecordSpec): Promise<ProviderResult<ProviderRecord>>;
  update(zone: DnsZone, id: string, record: RecordSpec): Promise<ProviderResult<ProviderRecord>>;
  remove(zone: DnsZone, id: string): Promise<ProviderResult<void>>;
}

/** Opens a provider with a team's token; one per provider name. */
export type DnsProviderFactory = (apiToken: string) => DnsProvider;

/** Every provider a team may connect, by name: what the API process hands the core. */
export type DnsProviders = Readonly<Record<DnsProviderName, DnsProviderFactory>>;
