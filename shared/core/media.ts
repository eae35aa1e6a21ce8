// The media library (WordPress's attachments, wp/v2/media): files a team's writers (owners, admins) upload, edit
// and delete, its viewers read; operators keep the platform's files (no team) and may act on every team's. A
// file's type is the one its bytes say (never its name's or a declared one), of the configured types, with a name
// whose extension is one of that type's, within the configured size; an image's width and height are read from
// it. The bytes are kept in the database with the row, in one transaction. Deleting is for good: there is no trash.
import { createHash, randomBytes } from 'node:crypto';
import { imageSize } from 'image-size';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { roleAllows, type UserRole } from '../domain/user.js';
import { mediaTypeOf, type Media, type MediaChange, type MediaFilter, type MediaListStatus, type MediaSort, type MediaStatus } from '../domain/media.js';
import { detectedType, safeFileName } from './support/attachments.js';

export interface MediaDeps {
  config: Config;
  store: Store;
}

/** Who acts: a user, its role, and the team it acts on (null for an operator, who acts on none). */
export interface MediaParty {
  userId: number;
  role: UserRole;
  teamId: number | null;
}

/** What a party was refused, in the media library's own words; an interface words it in its own. */
export type MediaRefusal =
  | { kind: 'not_found' }
  | { kind: 'may_not'; action: 'create' | 'edit' | 'delete' | 'read' | 'edit_context' | 'status' }
  | { kind: 'empty' }
  | { kind: 'too_big'; limit: number }
  | { kind: 'wrong_type'; message: string }
  | { kind: 'hash_mismatch' }
  | { kind: 'not_an_image' }
  | { kind: 'editing_unsupported' };

export type MediaResult<T> = { ok: true; value: T } | { ok: false; refusal: MediaRefusal };
const ok = <T>(value: T): MediaResult<T> => ({ ok: true, value });
const no = <T = never>(refusal: MediaRefusal): MediaResult<T> => ({ ok: false, refusal });

/** An upload: the name the client gave, the bytes, and the Content-MD5 if one was sent. */
export interface MediaUpload {
  fileName: string;
  content: Buffer;
  md5?: string;
}

/** A list's question: the filter's parts a caller may set (the team is the caller's), the order and the window. */
export interface MediaQuery extends Omit<MediaFilter, 'teamId' | 'statuses'> {
  statuses: readonly MediaListStatus[];
  sort: MediaSort;
  offset: number;
  limit: number;
}

const isOperator = (p: MediaParty): boolean => p.role === 'operator';
const mayWrite = (p: MediaParty): boolean => isOperator(p) || roleAllows(p.role, 'write');
const mayRead = (p: MediaParty): boolean => isOperator(p) || roleAllows(p.role, 'read');

/** Whether the file is the party's to see at all: its team's, or any for an operator. */
const owns = (p: MediaParty, m: Media): boolean => isOperator(p) || (p.teamId !== null && m.teamId === p.teamId);

/** WordPress's sanitize_title, as far as a slug needs it: lower case, letters and digits, hyphens between words. */
export function slugOf(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
  return slug === '' ? 'file' : slug;
}

/** A Content-MD5 as WordPress compares it (hex) or as RFC 1864 sends it (base64): the digest, or undefined when it is neither. */
function md5Matches(given: string, content: Buffer): boolean {
  const digest = createHash('md5').update(content).digest();
  const text = given.trim();
  if (/^[0-9a-f]{32}$/i.test(text)) return text.toLowerCase() === digest.toString('hex');
  return text === digest.toString('base64');
}

function dimensions(mimeType: string, content: Buffer): { width: number | null; height: number | null } {
  if (mediaTypeOf(mimeType) !== 'image') return { width: null, height: null };
  try {
    const size = imageSize(content);
    return { width: size.width ?? null, height: size.height ?? null };
  } catch {
    // A file whose type file-type found but whose header image-size cannot read: kept, without dimensions.
    return { width: null, height: null };
  }
}

const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};

export class MediaLibrary {
  constructor(private readonly d: MediaDeps) {}

  /** The largest file accepted, in bytes (an interface stops reading an upload past it). */
  get maxBytes(): number {
    return this.d.config.media.maxBytes;
  }

  /** Whether the party may upload at all: asked before the file is read, so a refused caller's upload is not taken in. */
  admits(party: MediaParty): MediaResult<void> {
    return mayWrite(party) ? ok(undefined) : no({ kind: 'may_not', action: 'create' });
  }

  /** The file's type as its bytes say, if it is one of the configured types and the name's extension is one of its. */
  private async typeOf(fileName: string, content: Buffer): Promise<MediaResult<string>> {
    const types = this.d.config.media.types;
    const type = await detectedType(content);
    if (!type || !types[type]) {
      return no({
        kind: 'wrong_type',
        message: `Files of this type are not accepted (its content is ${type ?? 'of no known type'}); accepted: ${Object.keys(types).join(', ')}.`,
      });
    }
    const extensions = types[type];
    if (!extensions.includes(extensionOf(fileName))) {
      return no({ kind: 'wrong_type', message: `The file's content is ${type}; its name must end in .${extensions.join(', .')}.` });
    }
    return ok(type);
  }

  /** Keeps an uploaded file for the party's team (an operator's: the platform's), checked as the header says. */
  async upload(party: MediaParty, upload: MediaUpload, log: Logger): Promise<MediaResult<Media>> {
    const allowed = this.admits(party);
    if (!allowed.ok) return allowed;
    const { content } = upload;
    if (content.length === 0) return no({ kind: 'empty' });
    if (content.length > this.maxBytes) return no({ kind: 'too_big', limit: this.maxBytes });
    if (upload.md5 !== undefined && !md5Matches(upload.md5, content)) return no({ kind: 'hash_mismatch' });
    const fileName = safeFileName(upload.fileName);
    const type = await this.typeOf(fileName, content);
    if (!type.ok) return type;
    const now = new Date().toISOString();
    // As WordPress: the title is the name without its extension; the other fields are set by a change after.
    const title = fileName.replace(/\.[^.]*$/, '');
    const media = await this.d.store.media.add({
      teamId: isOperator(party) ? null : party.teamId,
      authorId: party.userId,
      title,
      caption: '',
      altText: '',
      description: '',
      slug: slugOf(title),
      status: 'inherit',
      mimeType: type.value,
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      storageKey: randomBytes(16).toString('hex'),
      fileName,
      ...dimensions(type.value, content),
      date: now,
      modified: now,
      content,
    });
    log.info({ media: media.id, team: media.teamId, type: media.mimeType, bytes: media.size }, 'media uploaded');
    return ok(media);
  }

  /** A file the party may see; `forEdit`: as context=edit asks, which only its writers may. */
  async get(party: MediaParty, id: number, forEdit = false): Promise<MediaResult<Media>> {
    if (!mayRead(party)) return no({ kind: 'may_not', action: 'read' });
    const media = await this.d.store.media.find(id);
    if (!media || !owns(party, media)) return no({ kind: 'not_found' });
    if ((forEdit || media.status === 'private') && !mayWrite(party)) return no({ kind: 'may_not', action: forEdit ? 'edit_context' : 'read' });
    return ok(media);
  }

  /** A page of the files the party may see: its team's (every file for an operator). */
  async list(party: MediaParty, q: MediaQuery, forEdit = false): Promise<MediaResult<{ rows: Media[]; total: number }>> {
    if (!mayRead(party)) return no({ kind: 'may_not', action: 'read' });
    if (forEdit && !mayWrite(party)) return no({ kind: 'may_not', action: 'edit_context' });
    // WordPress: a status other than inherit is asked for by those who may edit only.
    if (q.statuses.some((s) => s !== 'inherit') && !mayWrite(party)) return no({ kind: 'may_not', action: 'status' });
    const { sort, offset, limit, statuses, ...rest } = q;
    // Media is never in the trash (deleting is for good): a list of `trash` is empty.
    const kept = statuses.filter((s): s is MediaStatus => s !== 'trash');
    const filter: MediaFilter = { ...rest, statuses: kept, ...(isOperator(party) ? {} : { teamId: party.teamId }) };
    return ok(await this.d.store.media.list(filter, sort, { offset, limit }));
  }

  /** Changes a file's fields (its writers, or an operator); the parts not given stay. */
  async update(party: MediaParty, id: number, change: MediaChange, log: Logger): Promise<MediaResult<Media>> {
    const found = await this.writable(party, id, 'edit');
    if (!found.ok) return found;
    const clean: MediaChange = { ...change, ...(change.slug !== undefined ? { slug: slugOf(change.slug) } : {}) };
    const updated = await this.d.store.media.update(id, clean, new Date().toISOString());
    if (!updated) return no({ kind: 'not_found' });
    log.info({ media: id, fields: Object.keys(change) }, 'media changed');
    return ok(updated);
  }

  /** Deletes a file and its bytes, for good; the file as it was. */
  async remove(party: MediaParty, id: number, log: Logger): Promise<MediaResult<Media>> {
    const found = await this.writable(party, id, 'delete');
    if (!found.ok) return found;
    const removed = await this.d.store.media.remove(id);
    if (!removed) return no({ kind: 'not_found' });
    log.info({ media: id, team: removed.teamId }, 'media deleted');
    return ok(removed);
  }

  /**
   * A file the party may change (`edit`) or delete: what WordPress's post-process answers (Tern keeps no
   * sub-sizes: the file as it is), what an image edit starts from, and what a delete checks before its force.
   */
  editable(party: MediaParty, id: number, action: 'edit' | 'delete'): Promise<MediaResult<Media>> {
    return this.writable(party, id, action);
  }

  /** Editing an image's pixels (flip, rotate, crop): Tern carries no image library, so it is refused. */
  editImage(media: Media): MediaResult<never> {
    return no(mediaTypeOf(media.mimeType) === 'image' ? { kind: 'editing_unsupported' } : { kind: 'not_an_image' });
  }

  private async writable(party: MediaParty, id: number, action: 'edit' | 'delete'): Promise<MediaResult<Media>> {
    const media = await this.d.store.media.find(id);
    if (!media || !owns(party, media)) return no({ kind: 'not_found' });
    return mayWrite(party) ? ok(media) : no({ kind: 'may_not', action });
  }

  /** A file by its public key, with its bytes: anyone with the URL (a mail client) reads it. */
  byStorageKey(key: string): Promise<{ media: Media; content: Buffer } | undefined> {
    return this.d.store.media.byStorageKey(key);
  }
}
