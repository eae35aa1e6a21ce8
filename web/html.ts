// HTML for the web pages: a tagged template that escapes every interpolated value with escape-html (only
// fragments built by this template pass through as they are), and the one layout every page shares, its
// stylesheet allowed by hash in the Content-Security-Policy (no inline script or style is allowed otherwise).
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';

/** Markup built by `html`: the only text written into a page without escaping. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolated = Html | string | number | undefined | ReadonlyArray<Html>;

function piece(value: Interpolated): string {
  if (value === undefined) return '';
  if (value instanceof Html) return value.text;
  if (typeof value === 'string' || typeof value === 'number') return escapeHtml(String(value));
  return value.map((h) => h.text).join('');
}

/** A fragment of markup; strings and numbers interpolated in it are escaped (text and quoted attribute values). */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += piece(value) + strings[i + 1]!;
  });
  return new Html(out);
}

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;color:#1d2327;background:#f0f0f1;margin:0}',
  'main{max-width:34rem;margin:4rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #c3c4c7}',
  'h1{font-size:1.4rem;margin-top:0}label{display:block;margin-top:1rem}',
  'input[type=text],input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}',
  'button{font:inherit;padding:.4rem 1rem;margin:1rem .5rem 0 0;cursor:pointer}',
  '.primary{background:#2271b1;color:#fff;border:1px solid #2271b1}.error{color:#b32d2e}',
  'kbd{font-size:1.2rem;background:#f6f7f7;padding:.2rem .4rem}.hint{color:#50575e;font-size:.9rem}',
].join('');

/** The stylesheet's hash, the one source of style the Content-Security-Policy allows. */
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

/** Built outside the `html` template, so no formatter can add whitespace the hash does not cover. */
const STYLE_ELEMENT = new Html(`<style>${STYLE}</style>`);

/** A whole page in the shared layout. */
export const layout = (title: string, body: Html): Html =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title} · Tern</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `;
