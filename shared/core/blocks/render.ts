// WordPress block markup (`<!-- wp:paragraph -->…`) rendered for an email: parsed by WordPress's own parser
// (@wordpress/block-serialization-default-parser), its references (reusable blocks, template parts) looked up
// through a BlockSource with a depth, cycle and count guard, its smartcodes filled, then each core block an email
// needs written anew as table layout with inline styles. A block's saved markup is never passed through: only its
// text (sanitised to inline formatting) and the few attributes Tern reads, each checked and escaped, so whatever an
// author or a smartcode value puts in (`<script>`, `javascript:`, an event handler) cannot run.
import { parse } from '@wordpress/block-serialization-default-parser';
import escapeHtml from 'escape-html';
import { fillSmartcodes, htmlValue, keepSections } from '../../domain/email-templates.js';
import type { BlockSource } from './block-source.js';
import { escapedText, firstElement, inlineHtml, richHtml, safeColor, safeImageUrl, safeUrl, without } from './email-html.js';

export type ParsedBlock = ReturnType<typeof parse>[number];

/** How deep references may nest (a reusable block in a template part in…), and how many one render may look up:
 * past either, a reference renders as nothing, so a cycle or a fan-out cannot hang a mail. */
export const MAX_REFERENCE_DEPTH = 5;
export const MAX_REFERENCES = 50;

export interface BlockRendering {
  source: BlockSource;
  /** The smartcodes' values: escaped in the HTML, as they are in attributes Tern reads (then checked). */
  values: Readonly<Record<string, string>>;
  /** `#rrggbb` of links and buttons (the layout's primary colour). */
  color: string;
}

/** The email-safe HTML of some block markup (the body of a mail, without the layout around it). */
export async function renderBlockMarkup(markup: string, r: BlockRendering): Promise<string> {
  const prepare = (m: string) => keepSections(m, r.values);
  const blocks = await expand(parse(prepare(markup)), { source: r.source, prepare, chain: [], budget: { left: MAX_REFERENCES } });
  return renderBlocks(fill(blocks, r.values), r.color);
}

interface Expansion {
  source: BlockSource;
  /** What is done to any markup before it is parsed (the sections kept or dropped by their values). */
  prepare: (markup: string) => string;
  /** The references being expanded, outermost first (`block:12`, `part:footer`). */
  chain: string[];
  budget: { left: number };
}

/** The blocks with every reference replaced by the blocks it points at; one not found, too deep, looping back
 * or past the budget is left out. */
async function expand(blocks: ParsedBlock[], x: Expansion): Promise<ParsedBlock[]> {
  const out: ParsedBlock[] = [];
  for (const b of blocks) {
    const ref = referenceOf(b, x.source);
    if (ref === undefined) {
      out.push({ ...b, innerBlocks: await expand(b.innerBlocks, x) });
      continue;
    }
    if (ref === null || x.chain.length >= MAX_REFERENCE_DEPTH || x.chain.includes(ref.key) || x.budget.left <= 0) continue;
    x.budget.left -= 1;
    const markup = await ref.look();
    if (markup !== null) out.push(...(await expand(parse(x.prepare(markup)), { ...x, chain: [...x.chain, ref.key] })));
  }
  return out;
}

/** undefined: not a reference; null: a reference to nothing Tern can look up (no ref, no slug). */
function referenceOf(b: ParsedBlock, source: BlockSource): { key: string; look: () => Promise<string | null> } | null | undefined {
  if (b.blockName === 'core/block') {
    const ref: unknown = b.attrs?.ref;
    return typeof ref === 'number' && Number.isSafeInteger(ref) && ref > 0 ? { key: `block:${ref}`, look: () => source.reusableBlock(ref) } : null;
  }
  if (b.blockName === 'core/template-part') {
    const slug: unknown = b.attrs?.slug;
    return typeof slug === 'string' && slug !== '' ? { key: `part:${slug}`, look: () => source.templatePart(slug) } : null;
  }
  return undefined;
}

/** The smartcodes filled: escaped in the saved HTML, as they are in the attributes (each checked where read). */
function fill(blocks: ParsedBlock[], values: Readonly<Record<string, string>>): ParsedBlock[] {
  const html = (s: string) => fillSmartcodes(s, values, htmlValue);
  const raw = (v: unknown): unknown => {
    if (typeof v === 'string') return fillSmartcodes(v, values, (value) => value);
    if (Array.isArray(v)) return v.map(raw);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, raw(inner)]));
    return v;
  };
  return blocks.map((b) => ({
    blockName: b.blockName,
    attrs: b.attrs === null ? null : (raw(b.attrs) as Record<string, unknown>),
    innerHTML: html(b.innerHTML),
    innerContent: b.innerContent.map((c) => (c === null ? null : html(c))),
    innerBlocks: fill(b.innerBlocks, values),
  }));
}

const e = escapeHtml;
const TABLE = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';
const P = 'margin:0 0 16px';
const HEADING_PX: Readonly<Record<number, number>> = { 1: 28, 2: 24, 3: 20, 4: 18, 5: 16, 6: 14 };

/** Blocks as email-safe HTML, one after the other. */
export function renderBlocks(blocks: ParsedBlock[], color: string): string {
  return blocks
    .map((b) => renderBlock(b, color))
    .filter((html) => html !== '')
    .join('\n');
}

function renderBlock(b: ParsedBlock, color: string): string {
  const own = ownHtml(b);
  switch (b.blockName) {
    case null:
      // HTML between blocks (WordPress's freeform content): as a core/html block.
      return own.trim() === '' ? '' : richHtml(own, color);
    case 'core/paragraph':
      return paragraph(inlineHtml(own, color), alignOf(b));
    case 'core/heading':
      return heading(b, inlineHtml(own, color));
    case 'core/list':
      return list(b, own, color);
    case 'core/list-item':
      return `<li style="margin:0 0 4px">${inlineHtml(own, color)}${renderBlocks(b.innerBlocks, color)}</li>`;
    case 'core/image':
      return image(b, color);
    case 'core/buttons':
      return buttonRow(b.innerBlocks, color, justifyOf(b));
    case 'core/button':
      return buttonRow([b], color, 'left');
    case 'core/separator':
      return `<table ${TABLE} width="100%" style="margin:8px 0 24px"><tr><td style="border-top:1px solid ${safeColor(path(b, 'style', 'color', 'background'), '#dddddd')};font-size:1px;line-height:1px">&nbsp;</td></tr></table>`;
    case 'core/spacer':
      return spacer(b);
    case 'core/group':
    case 'core/column':
      return group(b, color);
    case 'core/columns':
      return columns(b, color);
    case 'core/quote':
      return quote(b, own, color);
    case 'core/html':
      return richHtml(own, color);
    case 'core/block':
    case 'core/template-part':
      return ''; // left unexpanded only when nothing could be found
    default:
      return unknown(b, own, color);
  }
}

/** The block's own saved HTML, without the places of its inner blocks. */
const ownHtml = (b: ParsedBlock): string => b.innerContent.filter((c): c is string => c !== null).join('');

/** An attribute deep in a block's attributes (`style.color.background`), when it is there. */
function path(b: ParsedBlock, ...keys: string[]): unknown {
  let at: unknown = b.attrs;
  for (const key of keys) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

const ALIGNMENTS = ['left', 'center', 'right'] as const;
type Alignment = (typeof ALIGNMENTS)[number];
const alignment = (value: unknown): Alignment | null => ((ALIGNMENTS as readonly unknown[]).includes(value) ? (value as Alignment) : null);
const alignOf = (b: ParsedBlock): Alignment | null =>
  alignment(path(b, 'align')) ?? alignment(path(b, 'textAlign')) ?? alignment(path(b, 'style', 'typography', 'textAlign'));
const justifyOf = (b: ParsedBlock): Alignment => alignment(path(b, 'layout', 'justifyContent')) ?? 'left';

function paragraph(inline: string, align: Alignment | null): string {
  if (inline === '') return '';
  return `<p style="${P}${align ? `;text-align:${align}` : ''}">${inline}</p>`;
}

function heading(b: ParsedBlock, inline: string): string {
  if (inline === '') return '';
  const asked = path(b, 'level');
  const level = typeof asked === 'number' && asked >= 1 && asked <= 6 ? Math.trunc(asked) : 2;
  const align = alignOf(b);
  return `<h${level} style="margin:0 0 12px;font-size:${HEADING_PX[level]}px;line-height:1.3${align ? `;text-align:${align}` : ''}">${inline}</h${level}>`;
}

function list(b: ParsedBlock, own: string, color: string): string {
  const tag = path(b, 'ordered') === true ? 'ol' : 'ul';
  // Before WordPress 6.1 a list kept its items in its own HTML, not as list-item blocks.
  const items = b.innerBlocks.length > 0 ? renderBlocks(b.innerBlocks, color) : richHtml(firstElement(own, tag)?.inner ?? own, color);
  return items === '' ? '' : `<${tag} style="margin:0 0 16px;padding:0 0 0 24px">${items}</${tag}>`;
}

/** A width in pixels from `300`, `"300px"` or `"300"`, at most the mail's 600; null for any other (`50%`). */
function pixels(value: unknown, max: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,4}(px)?$/.test(value) ? Number.parseInt(value, 10) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), max) : null;
}

function image(b: ParsedBlock, color: string): string {
  const img = firstElement(b.innerHTML, 'img');
  // Without a source an email can load (http(s) or an attached cid:), there is nothing to show.
  const src = safeImageUrl(img?.attribs.src ?? path(b, 'url'));
  if (src === null) return '';
  const alt = img?.attribs.alt ?? path(b, 'alt');
  const width = pixels(path(b, 'width') ?? img?.attribs.width, 600);
  const tag = `<img src="${e(src)}" alt="${e(typeof alt === 'string' ? alt : '')}"${width ? ` width="${width}"` : ''} style="display:block;max-width:100%;height:auto;border:0${width ? `;width:${width}px` : ''}">`;
  const href = safeUrl(firstElement(b.innerHTML, 'a')?.attribs.href ?? path(b, 'href'));
  const caption = firstElement(b.innerHTML, 'figcaption');
  const captionHtml = caption ? inlineHtml(caption.inner, color) : '';
  const align = alignOf(b) ?? 'left';
  return [
    `<table ${TABLE} width="100%" style="margin:0 0 16px"><tr><td align="${align}">`,
    href === null ? tag : `<a href="${e(href)}">${tag}</a>`,
    captionHtml === '' ? '' : `<p style="margin:4px 0 0;font-size:14px;color:#666666">${captionHtml}</p>`,
    '</td></tr></table>',
  ].join('');
}

/** Buttons as a row of table cells with their colour as a background (the "bulletproof" button: Outlook
 * ignores a link's padding and background). */
function buttonRow(buttons: ParsedBlock[], color: string, justify: Alignment): string {
  const cells = buttons.filter((b) => b.blockName === 'core/button').map((b) => button(b, color));
  if (!cells.some((c) => c !== '')) return '';
  const row = cells.filter((c) => c !== '').join('<td style="width:8px">&nbsp;</td>');
  return `<table ${TABLE} width="100%" style="margin:0 0 16px"><tr><td align="${justify}"><table ${TABLE}><tr>${row}</tr></table></td></tr></table>`;
}

function button(b: ParsedBlock, color: string): string {
  const a = firstElement(b.innerHTML, 'a');
  const given = path(b, 'text');
  const label = inlineHtml(a ? a.inner : typeof given === 'string' ? given : '', color, { links: false });
  if (label === '') return '';
  const href = safeUrl(a?.attribs.href ?? path(b, 'url'));
  const background = safeColor(path(b, 'style', 'color', 'background'), color);
  const text = safeColor(path(b, 'style', 'color', 'text'), '#ffffff');
  const look = `display:inline-block;padding:12px 24px;color:${text};font-weight:bold;text-decoration:none`;
  // A button whose link is not one a mail may carry shows its label, linking nowhere.
  const inner = href === null ? `<span style="${look}">${label}</span>` : `<a href="${e(href)}" style="${look}">${label}</a>`;
  return `<td bgcolor="${background}" style="background-color:${background};border-radius:4px">${inner}</td>`;
}

function spacer(b: ParsedBlock): string {
  const height = pixels(path(b, 'height') ?? 100, 160) ?? 100;
  return `<table ${TABLE} width="100%"><tr><td height="${height}" style="height:${height}px;line-height:${height}px;font-size:1px">&nbsp;</td></tr></table>`;
}

function group(b: ParsedBlock, color: string): string {
  const inner = renderBlocks(b.innerBlocks, color);
  if (inner === '') return '';
  const background = safeColor(path(b, 'style', 'color', 'background'), '');
  const look = background === '' ? '' : ` bgcolor="${background}" style="background-color:${background};padding:16px 16px 0"`;
  return `<table ${TABLE} width="100%" style="margin:0 0 16px"><tr><td${look}>${inner}</td></tr></table>`;
}

/** A column's width as WordPress gives it (`33.33%`, `200px`), else null. */
function columnWidth(b: ParsedBlock): string | null {
  const w = path(b, 'width');
  return typeof w === 'string' && /^(\d{1,3}(\.\d{1,4})?%|\d{1,3}px)$/.test(w) ? w : null;
}

function columns(b: ParsedBlock, color: string): string {
  const cols = b.innerBlocks.filter((c) => c.blockName === 'core/column');
  if (cols.length === 0) return '';
  const given = cols.map(columnWidth);
  // Columns without a width share what the percentages given leave, as WordPress's flex layout does.
  const taken = given.reduce((sum, w) => sum + (w?.endsWith('%') ? Number.parseFloat(w) : 0), 0);
  const open = given.filter((w) => w === null).length;
  const share = `${(Math.max(100 - taken, 0) / Math.max(open, 1)).toFixed(2)}%`;
  const cells = cols.map((c, i) => {
    const width = given[i] ?? share;
    return `<td valign="top" width="${width}" style="width:${width};vertical-align:top;padding:0 8px">${renderBlocks(c.innerBlocks, color)}</td>`;
  });
  return `<table ${TABLE} width="100%" style="margin:0 0 16px"><tr>${cells.join('')}</tr></table>`;
}

function quote(b: ParsedBlock, own: string, color: string): string {
  const cite = firstElement(own, 'cite');
  // Before WordPress 6.2 a quote kept its paragraphs in its own HTML, not as paragraph blocks.
  const body = b.innerBlocks.length > 0 ? renderBlocks(b.innerBlocks, color) : richHtml(without(firstElement(own, 'blockquote')?.inner ?? own, 'cite'), color);
  const citation = cite ? inlineHtml(cite.inner, color) : '';
  if (body === '' && citation === '') return '';
  return [
    `<blockquote style="margin:0 0 16px;padding:0 0 0 16px;border-left:4px solid ${color}">`,
    body,
    citation === '' ? '' : `<p style="${P};color:#555555;font-size:14px">— ${citation}</p>`,
    '</blockquote>',
  ].join('');
}

/** A block Tern does not know: its text, escaped, and what it holds (its inner blocks, rendered). */
function unknown(b: ParsedBlock, own: string, color: string): string {
  const text = escapedText(own);
  return [text === '' ? '' : `<p style="${P}">${text}</p>`, renderBlocks(b.innerBlocks, color)].filter((s) => s !== '').join('\n');
}
