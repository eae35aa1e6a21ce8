// The media library's files at their public path, /media/{key}/{name} (a file's source_url): anyone with the URL
// reads it (a mail client showing an image of a template), and the key is 128 random bits, so a URL is not guessed.
// A file a user sent never runs in this site's origin: its stored type (the one its bytes said, never HTML, SVG or
// script), nosniff, a sandboxing Content-Security-Policy that allows nothing, and inline for images only (anything
// else is a download). The files are core/media.ts's; this file serves them.
import type { AppContext } from '../pipeline/context.js';
import { pageError } from './errors.js';
import { publicPage } from './page.js';
import type { PageRequest } from './request.js';
import type { PageReply } from './reply.js';
import { dispositionOf } from '../presenters/content-disposition.js';
import { MEDIA_PREFIX, mediaTypeOf, STORAGE_KEY } from '../../shared/domain/media.js';

/** A file's bytes never change under its key (a new upload gets a new key); a deleted one may linger in caches a day. */
const CACHE = 'public, max-age=86400';

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** GET /media/{key}/{name}: the file, or 404 (an unknown key, or a name not the file's). */
async function serveMedia(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const key = r.params.key ?? '';
  const found = STORAGE_KEY.test(key) ? await ctx.core.media.byStorageKey(key) : undefined;
  // One URL per file: its name as uploaded (the key alone finds it; another name is not it).
  if (!found || decoded(r.params.name ?? '') !== found.media.fileName) throw pageError('not_found', 'There is no such file.');
  const { media, content } = found;
  const image = mediaTypeOf(media.mimeType) === 'image';
  const disposition = dispositionOf(media.fileName);
  return {
    kind: 'file',
    contentType: media.mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : media.mimeType,
    body: content,
    headers: {
      'Content-Length': String(content.length),
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Content-Disposition': image ? disposition.replace(/^attachment/, 'inline') : disposition,
      'Cache-Control': CACHE,
      ETag: `"${media.sha256}"`,
      'Last-Modified': new Date(media.date).toUTCString(),
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  };
}

export const MEDIA_PAGES = [publicPage({ method: 'GET', path: `${MEDIA_PREFIX}:key/:name`, title: 'Not found', handle: serveMedia })];
