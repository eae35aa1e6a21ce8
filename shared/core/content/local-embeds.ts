// oEmbed's view of the site's own content: a URL of the site whose path is a published post's (/news/<slug>) or
// page's (/docs/<slug>) link is that item, with its author's name; anything else is not embeddable.
import escapeHtml from 'escape-html';
import type { Store } from '../../store/index.js';
import type { LocalEmbeds } from '../embeds/local-embeds.js';

/** Where the site shows each platform type (the items' `link`, as wp-post-routes.ts writes it). */
const SITE_PATHS = { news: 'post', docs: 'page' } as const;

export function contentLocalEmbeds(store: Store): LocalEmbeds {
  return {
    async byUrl(url) {
      const parsed = new URL(url);
      const match = /^\/(news|docs)\/([a-z0-9-]+)\/?$/.exec(parsed.pathname);
      if (!match) return null;
      const type = SITE_PATHS[match[1] as keyof typeof SITE_PATHS];
      const { items } = await store.content.listItems({
        types: [type],
        owners: [null],
        statuses: ['publish'],
        slugs: [match[2]!],
        orderby: 'id',
        order: 'asc',
        offset: 0,
        limit: 1,
      });
      const item = items[0];
      if (!item) return null;
      const author = item.authorId === null ? undefined : await store.users.get(item.authorId);
      return {
        title: item.title,
        authorName: author?.name || 'Tern',
        authorUrl: parsed.origin,
        link: `${parsed.origin}/${match[1]}/${item.slug}`,
        excerptHtml: item.excerpt ? `<p>${escapeHtml(item.excerpt)}</p>` : '',
        type,
      };
    },
  };
}
