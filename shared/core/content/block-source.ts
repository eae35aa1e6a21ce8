// The block renderer's references looked up in the content store: a reusable block is a published wp_block item,
// a template part a published wp_template_part of that slug; only the platform's own, as Tern's own mail is the
// platform's (a team's blocks never reach another team's or the platform's mail).
import type { Store } from '../../store/index.js';
import type { BlockSource } from '../blocks/block-source.js';

export function contentBlockSource(store: Store): BlockSource {
  return {
    async reusableBlock(id) {
      const item = await store.content.getItem(id);
      return item && item.type === 'wp_block' && item.status === 'publish' && item.teamId === null ? item.content : null;
    },
    async templatePart(slug) {
      const { items } = await store.content.listItems({
        types: ['wp_template_part'],
        owners: [null],
        statuses: ['publish'],
        slugs: [slug],
        orderby: 'id',
        order: 'asc',
        offset: 0,
        limit: 1,
      });
      return items[0]?.content ?? null;
    },
  };
}
