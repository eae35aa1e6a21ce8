// What the users collection needs of the content the dashboard's users author (wp/v2 posts, pages, media,
// templates): when a user is deleted, what it authored goes to another user (WordPress's `reassign`).
import type { Store } from '../../store/index.js';

export interface AuthoredContent {
  /** Gives everything `fromUserId` authored to `toUserId`; with null, it is kept, authored by nobody. */
  reassign(fromUserId: number, toUserId: number | null): Promise<void>;
  /** Whether the user authored a published post or page of the platform (what anyone may read). */
  hasPublished(userId: number): Promise<boolean>;
}

/** The content store's items (posts, pages, media, blocks, templates): their author is moved in one UPDATE. */
export const storedAuthorship = (store: Pick<Store, 'content'>): AuthoredContent => ({
  async reassign(fromUserId, toUserId) {
    await store.content.reassignAuthor(fromUserId, toUserId);
  },
  async hasPublished(userId) {
    const found = await store.content.listItems({
      types: ['post', 'page'],
      owners: [null],
      statuses: ['publish'],
      authors: [userId],
      orderby: 'id',
      order: 'desc',
      offset: 0,
      limit: 1,
    });
    return found.total > 0;
  },
});
