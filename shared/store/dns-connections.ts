// The DNS-provider connections repository: at most one connection per team and provider.
import type { DnsConnection, DnsProviderName } from '../domain/dns-connection.js';

export interface NewDnsConnection {
  teamId: number;
  provider: DnsProviderName;
  tokenEnc: string;
  tokenLast4: string;
}

export interface DnsConnectionRepository {
  /** Connects a team to a provider, or replaces the token of its connection (keeping when it was first made). */
  save(c: NewDnsConnection): Promise<DnsConnection>;
  get(teamId: number, provider: DnsProviderName): Promise<DnsConnection | undefined>;
  /** Forgets the connection and its token; false when there was none. */
  remove(teamId: number, provider: DnsProviderName): Promise<boolean>;
}
