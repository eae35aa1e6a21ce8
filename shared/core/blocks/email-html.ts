// The HTML a block may put in an email, decided by maintained libraries: sanitize-html keeps only allow-listed
// tags and attributes (and re-escapes every text), htmlparser2 reads the few attributes a block keeps in its saved
// markup (an image's src and alt, a button's link). Links are http(s), mailto or cid; images http(s) or cid;
// anything else is dropped, so no script, event handler, javascript: URL or external stylesheet survives.
import sanitizeHtml from 'sanitize-html';
import { parseDocument, DomUtils } from 'htmlparser2';

const LINK_SCHEMES = ['http', 'https', 'mailto', 'cid'] as const;
const IMAGE_SCHEMES = ['http', 'https', 'cid'] as const;

/** `value` as an absolute URL of one of `schemes` (normalised by the WHATWG parser, which also strips the tabs
 * and newlines of `java\nscript:`), else null: a relative or unparsable link goes nowhere in a mail. */
export function safeUrl(value: unknown, schemes: readonly string[] = LINK_SCHEMES): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(value.trim());
    return schemes.includes(url.protocol.slice(0, -1)) ? url.href : null;
  } catch {
    return null;
  }
}

export const safeImageUrl = (value: unknown): string | null => safeUrl(value, IMAGE_SCHEMES);

/** A colour as `#rgb` or `#rrggbb`, else `fallback` (a colour goes into a style attribute: nothing else may). */
export const safeColor = (value: unknown, fallback: string): string => (typeof value === 'string' && /^#(?:[0-9a-f]{3}){1,2}$/i.test(value) ? value : fallback);

const INLINE_TAGS = ['a', 'b', 'strong', 'i', 'em', 'u', 's', 'del', 'ins', 'code', 'sub', 'sup', 'br', 'mark', 'small', 'kbd', 'span'];

/** The styles an author's raw HTML may keep: layout and colour, values without url() or expressions. */
const PLAIN_VALUE = /^[#a-z0-9 .,%()-]+$/i;
const ALLOWED_STYLES = Object.fromEntries(
  ['color', 'background-color', 'text-align', 'font-weight', 'font-style', 'font-size', 'text-decoration', 'padding', 'margin', 'width', 'border'].map((p) => [
    p,
    [PLAIN_VALUE],
  ]),
);

/** A link with its inline colour (an email client ignores a stylesheet), or plain text when its target is not
 * one a mail may carry. */
const linkTransform =
  (color: string): sanitizeHtml.Transformer =>
  (_tag, attribs): sanitizeHtml.Tag => {
    const href = safeUrl(attribs.href);
    return href === null ? { tagName: 'span', attribs: {} } : { tagName: 'a', attribs: { href, style: `color:${color};text-decoration:underline` } };
  };

const imageTransform: sanitizeHtml.Transformer = (_tag, attribs) => {
  const src = safeImageUrl(attribs.src);
  const kept: Record<string, string> = src === null ? {} : { src, alt: attribs.alt ?? '', style: 'max-width:100%;height:auto;border:0' };
  for (const size of ['width', 'height']) if (/^\d{1,4}$/.test(attribs[size] ?? '')) kept[size] = attribs[size]!;
  return { tagName: 'img', attribs: kept };
};

/** Rich text inside a block (a paragraph's, a heading's): inline formatting and links only; the block's own
 * wrapper (`<p class=…>`) and every other tag are dropped, their text kept, escaped. */
export function inlineHtml(html: string, color: string, { links = true } = {}): string {
  return sanitizeHtml(html, {
    allowedTags: links ? INLINE_TAGS : INLINE_TAGS.filter((tag) => tag !== 'a'),
    allowedAttributes: { a: ['href', 'style'] },
    allowedSchemes: [...LINK_SCHEMES],
    allowProtocolRelative: false,
    transformTags: { a: linkTransform(color) },
  }).trim();
}

/** Raw HTML (a `core/html` block, HTML between blocks): sanitised to the tags an email can show, with links and
 * images checked as everywhere else, a few plain styles kept; scripts, forms, frames, event handlers dropped. */
export function richHtml(html: string, color: string): string {
  return sanitizeHtml(html, {
    allowedTags: [
      ...INLINE_TAGS,
      ...['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'hr', 'img', 'figure', 'figcaption'],
      ...['table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'caption'],
    ],
    allowedAttributes: {
      a: ['href', 'style'],
      img: ['src', 'alt', 'width', 'height', 'style'],
      td: ['colspan', 'rowspan', 'align', 'valign', 'width'],
      th: ['colspan', 'rowspan', 'align', 'valign', 'width'],
      table: ['width', 'align', 'cellpadding', 'cellspacing', 'border', 'role'],
      '*': ['style'],
    },
    allowedStyles: { '*': ALLOWED_STYLES },
    allowedSchemes: [...LINK_SCHEMES],
    allowedSchemesByTag: { img: [...IMAGE_SCHEMES] },
    allowProtocolRelative: false,
    transformTags: { a: linkTransform(color), img: imageTransform },
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  }).trim();
}

/** The text of some HTML, escaped (what an unknown block shows): no tag kept, script and style contents dropped. */
export const escapedText = (html: string): string => sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();

/** The first `name` element of some HTML with its (entity-decoded) attributes, and its inner HTML re-serialised. */
export function firstElement(html: string, name: string): { attribs: Record<string, string>; inner: string } | null {
  const found = DomUtils.findOne((e) => e.name === name, parseDocument(html).children, true);
  return found && { attribs: found.attribs, inner: DomUtils.getInnerHTML(found) };
}

/** The HTML without its `name` elements (a quote's citation, an image's caption, read apart). */
export function without(html: string, name: string): string {
  const doc = parseDocument(html);
  for (const e of DomUtils.findAll((el) => el.name === name, doc.children)) DomUtils.removeElement(e);
  return DomUtils.getOuterHTML(doc);
}
