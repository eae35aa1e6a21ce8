// What the users collection needs of the content the dashboard's users author (wp/v2 posts, pages, media,
// templates): when a user is deleted, what it authored goes to another user, or is deleted with it
// (WordPress's `reassign`). The content store is built apart; until it lands, nothing is authored and the
// no-op below stands in for it.
export interface AuthoredContent {
  /** Gives everything `fromUserId` authored to `toUserId`; with null, deletes it. */
  reassign(fromUserId: number, toUserId: number | null): Promise<void>;
}

/** No content is authored yet: nothing to reassign. */
export const NO_AUTHORED_CONTENT: AuthoredContent = { reassign: () => Promise.resolve() };
