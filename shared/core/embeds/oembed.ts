// oEmbed (WordPress's oembed/1.0): the embed of one of the site's own posts or pages (public), and the proxy an
// editor's embed block calls: the site's own URLs answered from its content without fetching; any other URL's page
// fetched by the safe-fetch rules, its oEmbed link discovered, the provider's answer fetched by the same rules,
// its html filtered (provider-html.ts), and kept in Redis (WordPress keeps it a day in a transient) under the
// normalised args.
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { XMLParser } from 'fast-xml-parser';
import type { Redis } from 'ioredis';
import { mayEditContent, type User } from '../../domain/user.js';
import { redisKeys } from '../../redis-keys.js';
import type { LocalEmbed, LocalEmbeds } from './local-embeds.js';
import { discoverOEmbed, type OEmbedFormat } from './page-head.js';
import { embedHtmlOf, embedSecret } from './provider-html.js';
import { bodyOf, fetchRemote, isSiteUrl, type RemoteDeps } from './remote.js';

export interface OEmbedDeps extends RemoteDeps {
  redis: Redis;
  local: LocalEmbeds;
}

/** The site answering: its name and its origin (provider_name, provider_url; which URLs are its own). */
export interface Site {
  name: string;
  url: string;
}

/** An oEmbed object: flat fields (version, type, title, html, width, …), as providers answer them. */
export type OEmbedData = Record<string, string | number>;

export interface EmbedArgs {
  url: string;
  maxwidth: number;
  site: Site;
}

export interface ProxyArgs extends EmbedArgs {
  format: OEmbedFormat;
  maxheight?: number;
  discover: boolean;
}

export type ProxyResult = { ok: true; value: OEmbedData } | { ok: false; refusal: 'forbidden' | 'invalid_url' };

// WordPress's oembed_min_max_width and the 16:9 height it derives, never under 200.
const MIN_WIDTH = 200;
const MAX_WIDTH = 600;
const EMBED_TYPES = new Set(['photo', 'video', 'link', 'rich']);

/** The post's embed view: its permalink followed by `embed/`, as get_post_embed_url with pretty permalinks. */
const embedUrlOf = (link: string): string => `${link.endsWith('/') ? link : `${link}/`}embed/`;

/** get_post_embed_html: a blockquote linking the post (shown without scripts) and the sandboxed iframe of its embed view. */
export function embedHtml(post: LocalEmbed, width: number, height: number, siteName: string): string {
  const s = embedSecret();
  const src = `${embedUrlOf(post.link)}#?secret=${s}`;
  return (
    `<blockquote class="wp-embedded-content" data-secret="${s}"><a href="${escapeHtml(post.link)}">${escapeHtml(post.title)}</a></blockquote>` +
    `<iframe sandbox="allow-scripts" security="restricted" src="${escapeHtml(src)}" width="${width}" height="${height}"` +
    ` title="${escapeHtml(`“${post.title}” — ${siteName}`)}" data-secret="${s}" frameborder="0" marginwidth="0" marginheight="0"` +
    ` scrolling="no" class="wp-embedded-content"></iframe>`
  );
}

/** get_oembed_response_data: the rich embed of one of the site's posts or pages. */
export function localEmbedData(post: LocalEmbed, maxwidth: number, site: Site): OEmbedData {
  const width = Math.min(Math.max(maxwidth, MIN_WIDTH), MAX_WIDTH);
  const height = Math.max(Math.ceil((width / 16) * 9), MIN_WIDTH);
  return {
    version: '1.0',
    provider_name: site.name,
    provider_url: site.url,
    author_name: post.authorName,
    author_url: post.authorUrl,
    title: post.title,
    type: 'rich',
    width,
    height,
    html: embedHtml(post, width, height, site.name),
  };
}

/** A provider's answer kept as flat fields; null unless it is an oEmbed object of a known type. */
function oembedObject(raw: unknown): OEmbedData | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const data: OEmbedData = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string' || typeof value === 'number') data[key] = value;
  }
  return typeof data.type === 'string' && EMBED_TYPES.has(data.type) ? data : null;
}

function parseProvider(text: string, format: OEmbedFormat): OEmbedData | null {
  try {
    if (format === 'json') return oembedObject(JSON.parse(text));
    const parsed: unknown = new XMLParser({ ignoreAttributes: true, parseTagValue: false, processEntities: true }).parse(text);
    return oembedObject((parsed as { oembed?: unknown }).oembed);
  } catch {
    return null;
  }
}

/** The provider's URL with the caller's size limits and the format its link announced (WP_oEmbed::fetch). */
function providerUrl(href: string, format: OEmbedFormat, a: ProxyArgs): string {
  const url = new URL(href);
  url.searchParams.set('maxwidth', String(a.maxwidth));
  if (a.maxheight !== undefined) url.searchParams.set('maxheight', String(a.maxheight));
  url.searchParams.set('format', format);
  return url.href;
}

/** One key per normalised set of args (WordPress: md5 of the serialised args). */
const cacheKey = (a: ProxyArgs): string =>
  redisKeys.oembedProxy(
    createHash('sha256')
      .update(JSON.stringify([a.url.trim(), a.format, a.maxwidth, a.maxheight ?? null, a.discover]))
      .digest('hex'),
  );

export class OEmbeds {
  constructor(private readonly d: OEmbedDeps) {}

  /** The embed of one of the site's posts or pages; null when the URL is none (404 oembed_invalid_url). */
  async embed(a: EmbedArgs): Promise<OEmbedData | null> {
    if (!isSiteUrl(a.url, a.site.url)) return null;
    const post = await this.d.local.byUrl(a.url);
    return post ? localEmbedData(post, a.maxwidth, a.site) : null;
  }

  /** The proxy: an editor's embed of any URL; the site's own from its content, others discovered and cached. */
  async proxy(user: User, a: ProxyArgs): Promise<ProxyResult> {
    if (!mayEditContent(user)) return { ok: false, refusal: 'forbidden' };
    if (isSiteUrl(a.url, a.site.url)) {
      const own = await this.embed(a);
      return own ? { ok: true, value: own } : { ok: false, refusal: 'invalid_url' };
    }
    const key = cacheKey(a);
    const kept = await this.d.redis.get(key);
    if (kept !== null) return { ok: true, value: JSON.parse(kept) as OEmbedData };
    const data = a.discover ? await this.discovered(a) : null;
    if (!data) return { ok: false, refusal: 'invalid_url' };
    const ttl = this.d.config.urlFetch.oembedCacheTtlS;
    if (ttl > 0) await this.d.redis.set(key, JSON.stringify(data), 'EX', ttl);
    return { ok: true, value: data };
  }

  /** The page's oEmbed link followed; null when the page, the link or the provider's answer is missing or unusable. */
  private async discovered(a: ProxyArgs): Promise<OEmbedData | null> {
    const page = await fetchRemote(this.d, a.url, 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1');
    const html = bodyOf(page);
    if (html === null || page.kind !== 'response') return null;
    const link = discoverOEmbed(html, page.url);
    if (!link) return null;
    const answer = bodyOf(await fetchRemote(this.d, providerUrl(link.href, link.format, a), link.format === 'json' ? 'application/json' : 'text/xml'));
    const data = answer === null ? null : parseProvider(answer, link.format);
    // The html answered is the one WordPress writes for it (the provider's own, filtered, for rich and video).
    const safeHtml = data ? embedHtmlOf(data, a.url) : null;
    return data && safeHtml !== null ? { ...data, html: safeHtml } : null;
  }
}
