// The sign-in-with-a-provider repository: what operators set for each provider (the client secret only sealed),
// saved with its audit entry in one transaction, and the links of provider subjects to users (one subject, one
// user: the key decides, not a read before the insert).
import type { SocialProvider, SocialProviderSettings } from '../domain/social-sign-in.js';
import type { NewAuditEntry } from './audit-log.js';

/** A provider subject's link to a user. */
export interface SocialLink {
  provider: SocialProvider;
  /** The provider's stable id of its user (OpenID Connect's `sub`, GitHub's numeric id). */
  subject: string;
  userId: number;
  /** ISO 8601 UTC. */
  linkedAt: string;
}

export interface SocialSignInRepository {
  /** The providers an operator set (one set never: no row). */
  providers(): Promise<SocialProviderSettings[]>;
  provider(provider: SocialProvider): Promise<SocialProviderSettings | undefined>;
  /** Stores a provider's settings and `audit(before)` together; the settings before (undefined: none were stored). */
  putProvider(s: SocialProviderSettings, audit: (before: SocialProviderSettings | undefined) => NewAuditEntry): Promise<SocialProviderSettings | undefined>;
  /** The user a subject is linked to. */
  linkOf(provider: SocialProvider, subject: string): Promise<number | undefined>;
  /** Links a subject to a user unless it is linked already; the link in force either way (the first one stands). */
  link(l: SocialLink): Promise<SocialLink>;
}
