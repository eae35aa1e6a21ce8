// The DNS providers a team may connect, by name, each opened with the team's token and the configured settings.
import type { Config } from '../../shared/config.js';
import type { DnsProvider, DnsProviders } from '../../shared/core/ports/dns-provider.js';
import { CloudflareProvider } from './cloudflare.js';

export function dnsProvidersFrom(config: Pick<Config, 'dnsProviders'>): DnsProviders {
  return {
    cloudflare: (apiToken: string): DnsProvider => new CloudflareProvider(config.dnsProviders.cloudflare, apiToken),
  };
}
