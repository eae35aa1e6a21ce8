// The single sign-on repository: the dashboards this one is paired with (children it sends users to, parents it
// accepts users from), each with its shared secret sealed, and the tokens already spent. A site's creation and
// removal are written with their audit entry in one transaction; a token is spent in one INSERT whose key is its
// pair and one-time id, so of two uses at once exactly one succeeds.
import type { SsoSite, SsoSiteKind } from '../domain/single-sign-on.js';
import type { NewAuditEntry } from './audit-log.js';

export interface NewSsoSite {
  kind: SsoSiteKind;
  siteId: string;
  name: string;
  url: string;
  /** The shared secret as the secret box sealed it (the core opens it to sign or verify a token). */
  secretSealed: string;
  at: string;
}

/** A site with its sealed secret: read only by the use case that signs or verifies a token. */
export interface SsoSiteWithSecret {
  site: SsoSite;
  secretSealed: string;
}

export interface SingleSignOnRepository {
  /** Stores a site and `audit(site)`; 'exists' when one of that kind has its site id or url already (nothing is written). */
  create(s: NewSsoSite, audit: (site: SsoSite) => NewAuditEntry): Promise<SsoSite | 'exists'>;
  /** The sites of a kind, oldest first (without secrets). */
  list(kind: SsoSiteKind): Promise<SsoSite[]>;
  get(id: number): Promise<SsoSite | undefined>;
  /** The site of a kind with that site id, and its sealed secret. */
  withSecret(kind: SsoSiteKind, siteId: string): Promise<SsoSiteWithSecret | undefined>;
  /** Removes a site and appends `audit(site)`; undefined (nothing written) when there is none of that id. */
  remove(id: number, audit: (site: SsoSite) => NewAuditEntry): Promise<SsoSite | undefined>;
  /** Spends a token: true the first time its (site id, one-time id) is seen, false ever after (until swept). */
  spend(siteId: string, jti: string, expiresAt: string, at: string): Promise<boolean>;
  /** Forgets spent tokens that expired before `before` (they are refused as expired anyway); how many. */
  removeSpentBefore(before: string): Promise<number>;
}
