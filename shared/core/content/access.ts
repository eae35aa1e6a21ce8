// Who may do what with content, as WordPress's capabilities map onto Tern's roles (docs/decisions.md): the
// platform's own items (announcements, documentation) are read by anyone once published and written by
// platform operators only; a team's items are read by its members and written by those who may change the team
// (owners and admins). Drafts, pending, private and trashed items, revisions and the edit context are for those
// who may write the item.
import type { ContentItem } from '../../domain/content.js';

export type ContentActor = { kind: 'anonymous' } | { kind: 'member'; userId: number; teamId: number; canWrite: boolean } | { kind: 'operator'; userId: number };

export const ANONYMOUS: ContentActor = { kind: 'anonymous' };

/** The owners whose items the actor may read: the platform's, and its own team's. */
export function readableOwners(actor: ContentActor): Array<number | null> | undefined {
  if (actor.kind === 'operator') return undefined;
  return actor.kind === 'member' ? [null, actor.teamId] : [null];
}

/** Whether the actor may write items of this owner (null: the platform's). */
export function mayWrite(actor: ContentActor, teamId: number | null): boolean {
  if (actor.kind === 'operator') return true;
  return actor.kind === 'member' && actor.canWrite && teamId !== null && teamId === actor.teamId;
}

/** Whether the actor may read the item: published ones of an owner it sees; any other only if it may write it. */
export function mayRead(actor: ContentActor, item: Pick<ContentItem, 'status' | 'teamId'>): boolean {
  if (mayWrite(actor, item.teamId)) return true;
  const owners = readableOwners(actor);
  return item.status === 'publish' && (owners === undefined || owners.includes(item.teamId));
}

/** The owner new items of the actor get: an operator writes the platform's, a member its team's. */
export const ownerOf = (actor: ContentActor): number | null => (actor.kind === 'member' ? actor.teamId : null);

export const isAnonymous = (actor: ContentActor): boolean => actor.kind === 'anonymous';

export const userIdOf = (actor: ContentActor): number | null => (actor.kind === 'anonymous' ? null : actor.userId);
