// What oEmbed discovery and url-details read of a fetched HTML page, parsed with htmlparser2 (a real HTML parser:
// attributes in any order or quoting, entities decoded, comments and scripts not mistaken for tags).
import { DomUtils, parseDocument } from 'htmlparser2';

type Element = ReturnType<typeof DomUtils.getElementsByTagName>[number];

export type OEmbedFormat = 'json' | 'xml';

export interface Discovered {
  href: string;
  format: OEmbedFormat;
}

// WordPress's linktypes, and the xml type most providers publish besides text/xml+oembed.
const LINK_TYPES: ReadonlyArray<[type: string, format: OEmbedFormat]> = [
  ['application/json+oembed', 'json'],
  ['text/xml+oembed', 'xml'],
  ['application/xml+oembed', 'xml'],
];

const relsOf = (e: Element): string[] => (e.attribs.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);

function elements(html: string, name: string): Element[] {
  return DomUtils.getElementsByTagName(name, parseDocument(html).children, true);
}

/** An absolute http(s) URL from an attribute read on `base`'s page, or null. */
function absolute(value: string | undefined, base: string): string | null {
  if (!value?.trim()) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The page's oEmbed link (json preferred, as WordPress), made absolute against the page's URL. */
export function discoverOEmbed(html: string, pageUrl: string): Discovered | null {
  const links = elements(html, 'link').filter((e) => relsOf(e).includes('alternate'));
  for (const [type, format] of LINK_TYPES) {
    const link = links.find((e) => (e.attribs.type ?? '').trim().toLowerCase() === type);
    const href = absolute(link?.attribs.href, pageUrl);
    if (href) return { href, format };
  }
  return null;
}

export interface PageDetails {
  title: string;
  icon: string;
  description: string;
  image: string;
}

const ICON_RELS = ['icon', 'shortcut icon', 'apple-touch-icon'];

const clean = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The meta content of the first <meta> whose name or property is one of `keys` (in that order of preference). */
function metaContent(metas: Element[], keys: readonly string[]): string {
  for (const key of keys) {
    const meta = metas.find((m) => (m.attribs.name ?? m.attribs.property ?? '').trim().toLowerCase() === key);
    if (meta?.attribs.content?.trim()) return clean(meta.attribs.content);
  }
  return '';
}

/** url-details' answer: title, icon, description and image of the page, as WordPress's controller reads them. */
export function pageDetails(html: string, pageUrl: string): PageDetails {
  const doc = parseDocument(html);
  const find = (name: string) => DomUtils.getElementsByTagName(name, doc.children, true);
  const title = find('title')[0];
  const metas = find('meta');
  const icon = find('link').find((e) => ICON_RELS.includes(relsOf(e).join(' ')));
  return {
    title: title ? clean(DomUtils.textContent(title)) : metaContent(metas, ['og:title']),
    icon: absolute(icon?.attribs.href, pageUrl) ?? '',
    description: metaContent(metas, ['description', 'og:description']),
    image: absolute(metaContent(metas, ['og:image', 'og:image:url']), pageUrl) ?? '',
  };
}
