// The port through which oEmbed answers for Tern's own posts and pages: given a URL of this site, what an embed
// shows of the post or page it is the link of. The content store (wp/v2 posts and pages) implements it; until it
// is connected, NO_LOCAL_EMBEDS answers null, so every URL of the site is "not embeddable" (404 oembed_invalid_url).

export interface LocalEmbed {
  title: string;
  authorName: string;
  authorUrl: string;
  /** The post's or page's permalink. */
  link: string;
  excerptHtml: string;
  type: 'post' | 'page';
}

export interface LocalEmbeds {
  /** The published post or page whose link `url` is, or null. */
  byUrl(url: string): Promise<LocalEmbed | null>;
}

/** No content yet: nothing of the site is embeddable. */
export const NO_LOCAL_EMBEDS: LocalEmbeds = { byUrl: () => Promise.resolve(null) };
