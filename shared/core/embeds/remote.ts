// How the embeds' use cases fetch a page a user named: safeGet with urlFetch's limits, through the product's resolver.
import type { Resolver } from 'node:dns/promises';
import type { Config } from '../../config.js';
import { safeGet, type GetOutcome } from '../../safe-http.js';

export interface RemoteDeps {
  config: Config;
  resolver: Resolver;
}

const USER_AGENT = 'Tern/1.0 (oEmbed; url-details)';

export function fetchRemote(d: RemoteDeps, url: string, accept: string): Promise<GetOutcome> {
  const f = d.config.urlFetch;
  return safeGet(d.resolver, {
    url,
    headers: { 'user-agent': USER_AGENT, accept },
    timeoutMs: f.timeoutMs,
    maxBytes: f.maxBytes,
    maxRedirects: f.maxRedirects,
    allowHosts: f.allowHosts,
  });
}

/** The body of a 200 answer as text, or null (any other status, a refusal, an error). */
export const bodyOf = (o: GetOutcome): string | null => (o.kind === 'response' && o.statusCode === 200 ? o.body.toString('utf8') : null);

/** Whether `url` is a page of the site at `siteUrl` (same host and port): answered from the site's own content. */
export function isSiteUrl(url: string, siteUrl: string): boolean {
  try {
    return new URL(url).host.toLowerCase() === new URL(siteUrl).host.toLowerCase();
  } catch {
    return false;
  }
}
