// A team's media (WordPress's attachments, wp/v2/media): a file uploaded to the dashboard, kept with its metadata
// and served at a public, unguessable path (for mail clients that load an image of a template). A file belongs
// to one team, or to the platform (teamId null: operators' files). Its type is the one its bytes say.

/** WordPress's statuses of an attachment: `inherit` (visible to the team) or `private` (writers only). */
export const MEDIA_STATUSES = ['inherit', 'private'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

/** What a list may ask for: the two statuses kept, and `trash`, which media never is in (there is no trash). */
export const MEDIA_LIST_STATUSES = ['inherit', 'private', 'trash'] as const;
export type MediaListStatus = (typeof MEDIA_LIST_STATUSES)[number];

export const MEDIA_ORDERS = ['date', 'id', 'include', 'title', 'slug', 'modified'] as const;
export type MediaOrder = (typeof MEDIA_ORDERS)[number];

export interface Media {
  id: number;
  /** null: a platform-wide file (an operator's). */
  teamId: number | null;
  authorId: number | null;
  title: string;
  caption: string;
  altText: string;
  description: string;
  slug: string;
  status: MediaStatus;
  /** The type detected from the bytes (never the name or a declared type). */
  mimeType: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** The public path's random part (128 bits, hex): `/media/{storageKey}/{fileName}`. */
  storageKey: string;
  /** The name given at upload, made safe to send back (no path, no quote, no control character). */
  fileName: string;
  width: number | null;
  height: number | null;
  /** ISO 8601 UTC. */
  date: string;
  modified: string;
}

/** A file's bytes and what it is stored as. */
export type NewMedia = Omit<Media, 'id'> & { content: Buffer };

/** What a change may set; the parts not given stay. */
export type MediaChange = Partial<Pick<Media, 'title' | 'caption' | 'altText' | 'description' | 'slug' | 'status'>>;

/** Which files a list takes: a team's (or every team's and the platform's: `teamId` undefined). */
export interface MediaFilter {
  /** A team's files; null: the platform's; undefined: every file (operators). */
  teamId?: number | null;
  search?: string;
  include?: readonly number[];
  exclude?: readonly number[];
  slugs?: readonly string[];
  authors?: readonly number[];
  statuses: readonly MediaStatus[];
  /** `image` (image/*) or `file` (anything else). */
  mediaType?: 'image' | 'file';
  /** A full type (`image/png`) or a major type (`image`). */
  mimeType?: string;
}

export interface MediaSort {
  by: MediaOrder;
  order: 'asc' | 'desc';
}

/** The public path a file is served at. */
export const MEDIA_PREFIX = '/media/';
export const mediaPath = (m: Pick<Media, 'storageKey' | 'fileName'>): string => `${MEDIA_PREFIX}${m.storageKey}/${encodeURIComponent(m.fileName)}`;
export const STORAGE_KEY = /^[0-9a-f]{32}$/;

/** WordPress's media_type: an image, or any other file. */
export const mediaTypeOf = (mimeType: string): 'image' | 'file' => (mimeType.startsWith('image/') ? 'image' : 'file');
