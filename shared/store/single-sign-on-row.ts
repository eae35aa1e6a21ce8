// The single sign-on sites' rows as both engines store them, decoded (the sealed secret only where asked for).
import { Type } from '@sinclair/typebox';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import { SSO_SITE_KINDS, type SsoSite } from '../domain/single-sign-on.js';
import type { SsoSiteWithSecret } from './single-sign-on.js';

export const SITE_COLUMNS = 'id, kind, site_id, name, url, created_at';

const SiteRow = Type.Object({ id: Int, kind: OneOf(SSO_SITE_KINDS), site_id: Text, name: Text, url: Text, created_at: Text });

const toSite = (r: { id: number; kind: SsoSite['kind']; site_id: string; name: string; url: string; created_at: string }): SsoSite => ({
  id: r.id,
  kind: r.kind,
  siteId: r.site_id,
  name: r.name,
  url: r.url,
  createdAt: r.created_at,
});

export const decodeSite = rowDecoder('single sign-on site', SiteRow, toSite);

export const decodeSiteWithSecret = rowDecoder('single sign-on site', Type.Object({ ...SiteRow.properties, secret_sealed: Text }), (r): SsoSiteWithSecret => ({
  site: toSite(r),
  secretSealed: r.secret_sealed,
}));
