// The media repository: a team's (or the platform's) uploaded files, their metadata in one table and their bytes
// in another, written together in one transaction (the row is never there without its bytes: a kill -9 leaves
// either both or neither). Lists read the metadata only.
import type { Media, MediaChange, MediaFilter, MediaSort, NewMedia } from '../domain/media.js';

export interface MediaWindow {
  offset: number;
  limit: number;
}

export interface MediaRepository {
  /** Keeps a file and its metadata; the file as stored (with its id). */
  add(media: NewMedia): Promise<Media>;
  find(id: number): Promise<Media | undefined>;
  /** A file by its public path's key, with its bytes. */
  byStorageKey(key: string): Promise<{ media: Media; content: Buffer } | undefined>;
  /** A window of the files the filter takes, in the sort's order (`include`: the filter's order), and how many it takes in all. */
  list(filter: MediaFilter, sort: MediaSort, window: MediaWindow): Promise<{ rows: Media[]; total: number }>;
  /** Changes what is given and sets `modified`; undefined when there is no such file. */
  update(id: number, change: MediaChange, modified: string): Promise<Media | undefined>;
  /** Deletes the file and its bytes; what was deleted, or undefined when it was already gone. */
  remove(id: number): Promise<Media | undefined>;
}
