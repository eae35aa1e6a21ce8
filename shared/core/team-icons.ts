// A team's uploaded icon: the type decided by the content's magic bytes (a maintained detector), never by a
// file name or a declared type; PNG, JPEG or WebP only, at most the configured size. Kept in the database (so
// every API process serves it) under an id derived from the team and the content, so a URL never changes
// meaning and may be cached for good.
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { StoredIcon, Team } from '../domain/team.js';

export interface TeamIconDeps {
  config: Config;
  store: Store;
}

/** The image types an icon may have, as their content says. */
export const ICON_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

/** Why an upload was refused: no content, content larger than the limit, content of another type, or the team is gone. */
export type IconRefusal = { kind: 'empty' } | { kind: 'too_large'; limit: number } | { kind: 'unsupported_type'; found: string | undefined } | { kind: 'not_found' };

/** The team as it is now (its icon the uploaded one), and the icon's id and type. */
export type IconUpload = { ok: true; team: Team; icon: Pick<StoredIcon, 'id' | 'contentType'> } | { ok: false; refusal: IconRefusal };

/** The icon's id: the team and the content hashed (base64url of SHA-256), so new content is a new URL. */
export const iconIdOf = (teamId: number, content: Buffer): string => createHash('sha256').update(`${teamId}:`).update(content).digest('base64url');

export class TeamIcons {
  constructor(private readonly d: TeamIconDeps) {}

  /** The largest icon accepted, in bytes (an interface stops reading an upload past it). */
  get maxBytes(): number {
    return this.d.config.dashboard.iconMaxBytes;
  }

  /** Keeps the uploaded content as the team's icon, if it is a PNG, JPEG or WebP image within the limit. */
  async upload(team: Team, content: Buffer, log: Logger): Promise<IconUpload> {
    if (content.length === 0) return { ok: false, refusal: { kind: 'empty' } };
    if (content.length > this.maxBytes) return { ok: false, refusal: { kind: 'too_large', limit: this.maxBytes } };
    const type = await fileTypeFromBuffer(content);
    if (!type || !ICON_TYPES.includes(type.mime)) return { ok: false, refusal: { kind: 'unsupported_type', found: type?.mime } };
    const icon = { id: iconIdOf(team.id, content), teamId: team.id, contentType: type.mime, content };
    const updated = await this.d.store.teams.saveIcon(icon);
    if (!updated) return { ok: false, refusal: { kind: 'not_found' } };
    log.info({ team: team.id, icon: icon.id, type: type.mime, bytes: content.length }, 'account icon uploaded');
    return { ok: true, team: updated, icon: { id: icon.id, contentType: icon.contentType } };
  }

  /** An uploaded icon by its id; icons are public (an account shows its icon to anyone it mails). */
  get(id: string): Promise<StoredIcon | undefined> {
    return this.d.store.teams.icon(id);
  }
}
