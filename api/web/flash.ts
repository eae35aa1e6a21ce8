// What a form leaves for the page it redirects to (post/redirect/get) when that is a secret made by the form (a
// new key, a webhook's signing secret, an application password): kept server-side in Redis for the session and
// the page, for a few minutes, and taken (GETDEL) by the first GET of that page that shows it. So the secret is
// never in a URL, a reload or the back button shows it no more, and the form is never posted twice. It is sealed
// with the master key (shared/secret-box.ts) while it waits: Redis, its dumps and its replicas never hold it in
// the clear.
import type { AppContext } from '../pipeline/context.js';
import { redisKeys } from '../../shared/redis-keys.js';
import type { Viewer } from './viewer.js';

/** Long enough for the redirect to be followed on a slow link; a flash not taken by then is dropped. */
const FLASH_TTL_S = 300;

/** Leaves `value` for the next GET of `page` in this session (a newer one replaces it). */
export async function leaveFlash(ctx: AppContext, viewer: Viewer, page: string, value: Readonly<Record<string, string>>): Promise<void> {
  await ctx.redis.set(redisKeys.pageFlash(viewer.session.id, page), ctx.secrets.seal(JSON.stringify(value)), 'EX', FLASH_TTL_S);
}

/** The value left for `page` in this session, once: taking it deletes it. */
export async function takeFlash(ctx: AppContext, viewer: Viewer, page: string): Promise<Record<string, string> | undefined> {
  const text = await ctx.redis.getdel(redisKeys.pageFlash(viewer.session.id, page));
  return text === null ? undefined : (JSON.parse(ctx.secrets.open(text)) as Record<string, string>);
}
