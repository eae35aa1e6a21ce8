// The adapters of outside services a process hands the core, which declares their ports (payment-provider.ts,
// dns-provider.ts) and never names an implementation: the arrows point from the processes down to the core.
import type { DnsProviders } from './dns-provider.js';
import type { PaymentProvider } from './payment-provider.js';

/** The API process's: it takes card payments and publishes teams' records through their DNS providers. */
export interface ApiAdapters {
  /** The configured card payment provider; null when the platform takes none (offline). */
  readonly payments: PaymentProvider | null;
  readonly dnsProviders: DnsProviders;
}

/** The MTA's: no card payments and no DNS providers (no page or route of either runs there). */
export interface MtaAdapters {
  readonly payments: null;
  readonly dnsProviders: null;
}

export const MTA_ADAPTERS: MtaAdapters = { payments: null, dnsProviders: null };

export type CoreAdapters = ApiAdapters | MtaAdapters;
