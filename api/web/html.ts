// HTML for the web pages: a tagged template that escapes every interpolated value with escape-html (only
// fragments built by this template pass through as they are). The layouts are in web/layout.ts.
import escapeHtml from 'escape-html';

/** Markup built by `html`: the only text written into a page without escaping. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** `undefined`, `null` and `false` write nothing (so `cond && html`…`` reads as it means). */
export type Interpolated = Html | string | number | undefined | null | false | ReadonlyArray<Html>;

function piece(value: Interpolated): string {
  if (value === undefined || value === null || value === false) return '';
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
