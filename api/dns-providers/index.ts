// The DNS providers a team may connect, by name, each opened with the team's token and the configured settings.
import type { Config } from '../../shared/config.js';
import type { DnsProviderName } from '../../shared/domain/dns-connection.js';
import type { DnsProvider, DnsProviderFactory } from '../../shared/core/ports/dns-provider.js';
import { CloudflareProvider } from './cloudflare.js';

export type { DnsProvider, DnsProviderFactory, DnsZone, ProviderFailure, ProviderRecord, ProviderResult, RecordSpec } from '../../shared/core/ports/dns-provider.js';

export type DnsProviders = Readonly<Record<DnsProviderName, DnsProviderFactory>>;

export function dnsProvidersFrom(config: Pick<Config, 'dnsProviders'>): DnsProviders {
  return {
    cloudflare: (apiToken: string): DnsProvider => new CloudflareProvider(config.dnsProviders.cloudflare, apiToken),
  };
}
