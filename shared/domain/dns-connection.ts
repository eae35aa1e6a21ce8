// A team's connection to a DNS hosting provider: the API token Tern uses to publish the team's domain records there.
export const DNS_PROVIDERS = ['cloudflare'] as const;
export type DnsProviderName = (typeof DNS_PROVIDERS)[number];

/** How messages name each provider. */
export const DNS_PROVIDER_TITLES: Readonly<Record<DnsProviderName, string>> = { cloudflare: 'Cloudflare' };

export interface DnsConnection {
  teamId: number;
  provider: DnsProviderName;
  /** The provider's API token, sealed (see secret-box); never shown again once given. */
  tokenEnc: string;
  /** The token's last 4 characters, the only part of it ever shown. */
  tokenLast4: string;
  /** ISO 8601 UTC: when the team first connected this provider (a new token keeps it). */
  createdAt: string;
  /** ISO 8601 UTC: when the token was last replaced. */
  updatedAt: string;
}
