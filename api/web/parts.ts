// Small pieces the dashboard's pages share: a notice after a change (by code, from the page's own table, so no
// text travels in a URL), a value shown once with its copy button, a status badge, a table that scrolls on a
// narrow screen, paging links, a form's error, dates as people read them.
import { html, type Html } from './html.js';
import { formGuard } from './layout.js';
import type { PageRequest } from './request.js';
import type { Viewer } from './viewer.js';

/** The query a page is redirected to after a change (`?done=created`): only a code, the page words it. */
export const DONE_PARAM = 'done';

/** Where to go after a form succeeded: the page, with the code of what was done. */
export const doneAt = (path: string, code: string): string => `${path}${path.includes('?') ? '&' : '?'}${DONE_PARAM}=${encodeURIComponent(code)}`;

/** The notice for `?done=code`, when the page knows the code. */
export function noticeOf(r: PageRequest, table: Readonly<Record<string, string>>): Html | undefined {
  const code = r.query[DONE_PARAM];
  const text = code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
  return text === undefined ? undefined : html`<p class="notice" role="status">${text}</p>`;
}

export const formError = (message: string | undefined): Html | undefined => (message ? html`<p class="error" role="alert">${message}</p>` : undefined);

/** Every problem of a refused form at once (never only the first): one paragraph, or a list under one alert. */
export function formErrors(messages: readonly string[] | undefined): Html | undefined {
  if (!messages || messages.length === 0) return undefined;
  if (messages.length === 1) return formError(messages[0]);
  return html`<div class="error" role="alert">
    <p>Nothing was saved: ${messages.length} fields need a change.</p>
    <ul>
      ${messages.map((m) => html`<li>${m}</li>`)}
    </ul>
  </div>`;
}

/** A secret shown this once (a new key, a webhook's secret): selectable, with a copy button. */
export const shownOnce = (id: string, label: string, value: string): Html =>
  html`<div class="card">
    <p><strong>${label}</strong> — copy it now: it is not shown again.</p>
    <p><kbd class="secret" id="${id}">${value}</kbd></p>
    <button type="button" data-copy="${id}">Copy</button>
  </div>`;

/** A value with its copy button (a DNS record). */
export const copyable = (id: string, value: string): Html =>
  html`<code id="${id}">${value}</code> <button type="button" class="small" data-copy="${id}" aria-label="Copy">Copy</button>`;

export type Tone = 'good' | 'bad' | 'pending';
export const badge = (text: string, tone: Tone): Html => html`<span class="status ${tone}">${text}</span>`;

/**
 * A table under its caption. On a narrow screen each row is stacked, its cells one under the other (web/static/
 * app.css; app.js gives each cell its column's heading to show above it), so no table is wider than a phone;
 * `empty` when it has no rows.
 */
export function table(caption: string, head: readonly (string | Html)[], rows: readonly Html[], empty = 'Nothing yet.'): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  const th = head.map((h) => html`<th scope="col">${h}</th>`);
  // Focusable and named: a keyboard user can scroll it too when a desktop is too narrow for it (axe:
  // scrollable-region-focusable).
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${th}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** Links to the previous and next pages of a list, keeping the other query values. */
export function pager(r: PageRequest, page: number, totalPages: number): Html | undefined {
  if (totalPages <= 1) return undefined;
  const at = (n: number) => {
    const q = new URLSearchParams(r.query);
    q.set('page', String(n));
    q.delete(DONE_PARAM);
    return `${r.url.split('?')[0]}?${q.toString()}`;
  };
  return html`<nav class="pager" aria-label="Pages">
    ${page > 1 ? html`<a href="${at(page - 1)}" rel="prev">Previous</a>` : undefined}
    <span>Page ${page} of ${totalPages}</span>
    ${page < totalPages ? html`<a href="${at(page + 1)}" rel="next">Next</a>` : undefined}
  </nav>`;
}

/** A form that only posts (a delete, a pause): its button, its guard, and the question asked before it is sent. */
export function actionButton(
  v: Viewer,
  action: string,
  label: string,
  opts: { confirm?: string; danger?: boolean; fields?: Record<string, string>; id?: string } = {},
): Html {
  const fields = Object.entries(opts.fields ?? {}).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}" />`);
  return html`<form method="post" action="${action}" class="inline" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : undefined}>
    ${formGuard(v)}${fields}
    <button type="submit" class="small ${opts.danger ? 'danger' : ''}" ${opts.id ? html`id="${opts.id}"` : undefined}>${label}</button>
  </form>`;
}

/** An ISO time as "2026-11-27 14:03 UTC" (the dashboard shows UTC, as the REST routes answer it). */
export const when = (iso: string | null | undefined): string => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

/** The page number asked for (`?page=`), at least 1. */
export const pageAsked = (r: PageRequest): number => {
  const n = Number(r.query.page ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : 1;
};

/** A table of named figures, one row each: the name heads its row, the figure is right-aligned. */
export const figuresTable = (caption: string, head: readonly [string, string], figures: ReadonlyArray<readonly [string, string | number]>): Html =>
  table(
    caption,
    head,
    figures.map(
      ([label, value]) =>
        html`<tr>
          <th scope="row">${label}</th>
          <td class="number">${value}</td>
        </tr>`,
    ),
  );
