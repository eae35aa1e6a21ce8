// A dashboard user in WordPress's user shape (WP_REST_Users_Controller::prepare_item_for_response), and the
// schema's context of each field: the private ones (email, username, roles, capabilities…) in the edit context
// only; id, name, url, description, link, slug and avatar_urls in view and embed too.
import { createHash } from 'node:crypto';
import type { Incoming } from '../../pipeline/pipeline.js';
import type { ProfiledUser } from '../../../shared/domain/user-profile.js';
import { capabilitiesOf } from '../../../shared/core/identity/user-directory.js';
import { apiUrl, forContext, type ItemSchema, type RestContext, type WpLinks } from './wp-collection.js';

const ALL = ['view', 'embed', 'edit'] as const;
const EDIT = ['edit'] as const;

export const USER_SCHEMA: ItemSchema = {
  id: { context: ALL },
  username: { context: EDIT },
  name: { context: ALL },
  first_name: { context: EDIT },
  last_name: { context: EDIT },
  email: { context: EDIT },
  url: { context: ALL },
  description: { context: ALL },
  link: { context: ALL },
  locale: { context: EDIT },
  nickname: { context: EDIT },
  slug: { context: ALL },
  registered_date: { context: EDIT },
  roles: { context: EDIT },
  capabilities: { context: EDIT },
  extra_capabilities: { context: EDIT },
  avatar_urls: { context: ALL },
  meta: { context: ['view', 'edit'] },
};

const AVATAR_SIZES = [24, 48, 96] as const;

/** get_avatar_url: Gravatar's address for the email (its hash, never the email), at each of WordPress's sizes. */
function avatarUrls(email: string): Record<string, string> {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return Object.fromEntries(AVATAR_SIZES.map((size) => [String(size), `https://secure.gravatar.com/avatar/${hash}?s=${size}&d=mm&r=g`]));
}

export const userUrl = (req: Pick<Incoming, 'origin'>, id: number): string => apiUrl(req, `/wp/v2/users/${id}`);

/** The user's fields in `context`, with its `_links` (self, collection). */
export function wpUserView(req: Pick<Incoming, 'origin'>, { user, profile }: ProfiledUser, context: RestContext): Record<string, unknown> {
  const links: WpLinks = { self: [{ href: userUrl(req, user.id) }], collection: [{ href: apiUrl(req, '/wp/v2/users') }] };
  const item = {
    id: user.id,
    username: profile.username,
    // WordPress's display_name falls back to the login name.
    name: user.name || profile.username,
    first_name: profile.firstName,
    last_name: profile.lastName,
    email: user.email,
    url: profile.url,
    description: profile.description,
    link: `${req.origin}/author/${profile.slug}/`,
    locale: profile.locale || 'en_US',
    nickname: profile.nickname || profile.username,
    slug: profile.slug,
    registered_date: `${user.createdAt.slice(0, 19)}+00:00`,
    roles: [user.role],
    capabilities: capabilitiesOf(user.role),
    extra_capabilities: { [user.role]: true },
    avatar_urls: avatarUrls(user.email),
    meta: {},
    _links: links,
  };
  return forContext(USER_SCHEMA, item, context);
}
