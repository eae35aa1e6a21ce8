// The block editor's url-details (WordPress's WP_REST_URL_Details_Controller): the title, icon, description and
// image of a page an editor links to, read from its head; fetched by the safe-fetch rules and kept in Redis
// (WordPress keeps it an hour).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { mayEditContent, type User } from '../../domain/user.js';
import { redisKeys } from '../../redis-keys.js';
import { pageDetails, type PageDetails } from './page-head.js';
import { fetchRemote, type RemoteDeps } from './remote.js';

export interface UrlDetailsDeps extends RemoteDeps {
  redis: Redis;
}

export type UrlDetailsRefusal =
  | { kind: 'forbidden' }
  | { kind: 'invalid_url'; message: string }
  /** Refused (address, port, scheme), unreachable, timed out or not a 200. */
  | { kind: 'no_response'; message: string }
  | { kind: 'no_content' };

export type UrlDetailsResult = { ok: true; value: PageDetails } | { ok: false; refusal: UrlDetailsRefusal };

const NON_200 = 'URL not found. Response returned a non-200 status code for this URL.';
// What wp_safe_remote_get answers for a URL it refuses (wp_http_validate_url failing).
const NOT_VALID = 'A valid URL was not provided.';

const cacheKey = (url: string): string => redisKeys.urlDetails(createHash('sha256').update(url).digest('hex'));

export class UrlDetails {
  constructor(private readonly d: UrlDetailsDeps) {}

  async details(user: User, url: string): Promise<UrlDetailsResult> {
    if (!mayEditContent(user)) return { ok: false, refusal: { kind: 'forbidden' } };
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      return { ok: false, refusal: { kind: 'invalid_url', message: 'url is not a valid URL.' } };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, refusal: { kind: 'invalid_url', message: 'url must be an http or https URL.' } };
    const key = cacheKey(parsed.href);
    const kept = await this.d.redis.get(key);
    if (kept !== null) return { ok: true, value: JSON.parse(kept) as PageDetails };
    const page = await fetchRemote(this.d, parsed.href, 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1');
    if (page.kind === 'refused') return { ok: false, refusal: { kind: 'no_response', message: NOT_VALID } };
    if (page.kind === 'error' || page.statusCode !== 200) return { ok: false, refusal: { kind: 'no_response', message: NON_200 } };
    if (!page.body.length) return { ok: false, refusal: { kind: 'no_content' } };
    const details = pageDetails(page.body.toString('utf8'), page.url);
    const ttl = this.d.config.urlFetch.urlDetailsCacheTtlS;
    if (ttl > 0) await this.d.redis.set(key, JSON.stringify(details), 'EX', ttl);
    return { ok: true, value: details };
  }
}
