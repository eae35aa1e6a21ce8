// What the proxy answers as `html` for another site's embed, as WordPress's data2html and wp_filter_oembed_result
// make it: a photo or a link is written from the provider's fields; a rich or video embed's html comes from a
// provider nobody vetted, so only an iframe (required) and a blockquote to show until it loads are kept, with the
// few attributes WordPress allows (sanitize-html), the iframe sandboxed and tied to the blockquote by a secret.
import { randomInt } from 'node:crypto';
import escapeHtml from 'escape-html';
import { DomUtils, parseDocument } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';

const SECRET_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** wp_generate_password(10, false): what ties an iframe to its blockquote for the host page's script. */
export const embedSecret = (): string => Array.from({ length: 10 }, () => SECRET_ALPHABET[randomInt(SECRET_ALPHABET.length)]).join('');

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: ['a', 'blockquote', 'iframe'],
  allowedAttributes: { a: ['href'], iframe: ['src', 'width', 'height', 'frameborder', 'marginwidth', 'marginheight', 'scrolling', 'title'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  // Dropped with what they hold, not left as text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'object', 'embed'],
};

/** A rich or video embed's html made safe, or null when it holds no iframe (WordPress then has no embed). */
export function untrustedEmbedHtml(html: string): string | null {
  const doc = parseDocument(sanitizeHtml(html, ALLOWED));
  const iframe = DomUtils.findOne((e) => e.name === 'iframe', doc.children, true);
  if (!iframe) return null;
  const blockquote = DomUtils.findOne((e) => e.name === 'blockquote', doc.children, true);
  const secret = embedSecret();
  if (iframe.attribs.src) iframe.attribs.src = `${iframe.attribs.src.replace(/#.*$/, '')}#?secret=${secret}`;
  Object.assign(iframe.attribs, { class: 'wp-embedded-content', sandbox: 'allow-scripts', security: 'restricted', 'data-secret': secret });
  if (!blockquote) return DomUtils.getOuterHTML(iframe);
  // The blockquote is shown until the iframe's page says it has loaded.
  Object.assign(blockquote.attribs, { class: 'wp-embedded-content', 'data-secret': secret });
  iframe.attribs.style = 'position: absolute; visibility: hidden;';
  return DomUtils.getOuterHTML(blockquote) + DomUtils.getOuterHTML(iframe);
}

const text = (v: string | number | undefined): string => (v === undefined ? '' : String(v));

/** data2html: the html of a provider's answer for `url`, or null when its type has none. */
export function embedHtmlOf(data: Readonly<Record<string, string | number>>, url: string): string | null {
  switch (data.type) {
    case 'photo': {
      if (!data.url || !data.width || !data.height) return null;
      const img = `<img src="${escapeHtml(text(data.url))}" alt="${escapeHtml(text(data.title))}" width="${escapeHtml(text(data.width))}" height="${escapeHtml(text(data.height))}" />`;
      return `<a href="${escapeHtml(url)}">${img}</a>`;
    }
    case 'video':
    case 'rich':
      return typeof data.html === 'string' ? untrustedEmbedHtml(data.html) : null;
    case 'link':
      return data.title ? `<a href="${escapeHtml(url)}">${escapeHtml(text(data.title))}</a>` : null;
    default:
      return null;
  }
}
