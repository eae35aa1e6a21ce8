// The platform's branding on the pages before signing in (sign in, forgot password, …) and what it is served
// from: /branding/{id}.{ext} (an uploaded image, its stored type, cached for good: its id is its content's
// hash) and /branding/sign-in.{hash}.css (the colours as a stylesheet of this site, as the pages' Content-
// Security-Policy takes no inline style). The branding is core/branding.ts's; this file shows it.
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import { html } from './html.js';
import { pageError } from './errors.js';
import { publicPage } from './page.js';
import type { PageRequest } from './request.js';
import type { PageReply } from './reply.js';
import { BRANDING_IMAGE_TYPES, BRANDING_PREFIX, brandingCssPath } from '../../shared/domain/branding.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const IMAGE_FILE = /^([0-9a-f]{32})\.(png|jpg|webp)$/;
const CSS_FILE = /^sign-in\.[0-9a-f]{16}\.css$/;

type PublicHandler = (ctx: AppContext, r: PageRequest, log: Logger) => Promise<PageReply>;

/** A public page's handler whose pages carry the branding: the logo above the title, the message, the colours. */
export function branded(handle: PublicHandler): PublicHandler {
  return async (ctx, r, log) => {
    const reply = await handle(ctx, r, log);
    if (reply.kind !== 'page') return reply;
    const look = await ctx.core.branding.look();
    const logo = look.logoPath === null ? undefined : html`<img class="branding-logo" src="${look.logoPath}" alt="" />`;
    const message = look.message === '' ? undefined : html`<p class="branding-message" id="branding-message">${look.message}</p>`;
    if (logo === undefined && message === undefined && look.css === undefined) return reply;
    return {
      ...reply,
      look: { header: html`${logo}${message}`, ...(look.css === undefined ? {} : { stylesheet: brandingCssPath(look.css) }) },
    };
  };
}

/** GET /branding/{file}: an uploaded image, or the colours' stylesheet; 404 for anything else. */
async function serveBranding(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const file = r.params.file ?? '';
  const image = IMAGE_FILE.exec(file);
  if (image) {
    const stored = await ctx.core.branding.image(image[1]!);
    // The extension must be the stored type's: one URL, one type.
    if (stored && BRANDING_IMAGE_TYPES[stored.contentType] === image[2])
      return {
        kind: 'file',
        contentType: stored.contentType,
        body: stored.content,
        headers: { 'Cache-Control': IMMUTABLE, 'Content-Length': String(stored.content.length) },
      };
  } else if (CSS_FILE.test(file)) {
    const css = (await ctx.core.branding.look()).css ?? '';
    // A page names the stylesheet by its content's hash; an older name gets the colours of now, not kept.
    const current = css !== '' && `${BRANDING_PREFIX}${file}` === brandingCssPath(css);
    return { kind: 'file', contentType: 'text/css; charset=utf-8', body: Buffer.from(css), headers: { 'Cache-Control': current ? IMMUTABLE : 'no-cache' } };
  }
  throw pageError('not_found', 'There is no such file.');
}

export const BRANDING_PAGES = [publicPage({ method: 'GET', path: `${BRANDING_PREFIX}:file`, title: 'Not found', handle: serveBranding })];
