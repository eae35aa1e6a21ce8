// What the pages' lists share: the page size and how deep paging may go (the REST routes' paging depth), the
// filters read from the query (a value outside its list is a 400 on the page, not silently ignored), and the
// filter form (a GET form: its values stay in the URL, so a filtered list can be linked; it changes nothing, so
// it carries no CSRF token, which would otherwise land in the URL).
import type { PageRequest as CorePage } from '../../shared/core/index.js';
import type { AppContext } from '../pipeline/context.js';
import { beyondDepth } from '../pipeline/paging.js';
import { html, type Html } from './html.js';
import { pageError } from './errors.js';
import { pageAsked, pager } from './parts.js';
import type { PageRequest } from './request.js';

/** Rows per page of every list. */
export const PER_PAGE = 25;

/** Why page `page` of a list of `perPage` rows a page is not shown (past the REST routes' paging depth), in the words of its `rows`. */
export function pagingProblem(ctx: AppContext, page: number, rows = 'records', perPage = PER_PAGE): string | undefined {
  const depth = ctx.config.limits.pagingDepth;
  return beyondDepth({ page, perPage }, ctx.config) ? `Paging reaches beyond ${depth} ${rows}; narrow the filters instead.` : undefined;
}

/** The page asked for of a list of `perPage` rows a page, refused (400) beyond the paging depth as the REST routes refuse it. */
export function listPage(ctx: AppContext, r: PageRequest, perPage = PER_PAGE): CorePage {
  const page = pageAsked(r);
  const problem = pagingProblem(ctx, page, 'records', perPage);
  if (problem) throw pageError('invalid_request', problem);
  return { page, perPage };
}

/** The pager of a list of `total` rows. */
export const listPager = (r: PageRequest, page: CorePage, total: number): Html | undefined => pager(r, page.page, Math.ceil(total / page.perPage));

/** A text filter: trimmed, absent when empty; longer than `max` is a 400. */
export function textQuery(r: PageRequest, name: string, label: string, max: number): string | undefined {
  const value = (r.query[name] ?? '').trim();
  if (value.length > max) throw pageError('invalid_request', `${label} may have at most ${max} characters.`);
  return value === '' ? undefined : value;
}

/** A filter picked from a list: absent when empty; any other value is a 400. */
export function choiceQuery<T extends string>(r: PageRequest, name: string, label: string, values: readonly T[]): T | undefined {
  const value = r.query[name] ?? '';
  if (value === '') return undefined;
  if (!(values as readonly string[]).includes(value)) throw pageError('invalid_request', `${label} must be one of: ${values.join(', ')}.`);
  return value as T;
}

/** An id filter (a team's): absent when empty; anything but a positive whole number is a 400. */
export function idQuery(r: PageRequest, name: string, label: string): number | undefined {
  const value = (r.query[name] ?? '').trim();
  if (value === '') return undefined;
  if (!/^[1-9]\d{0,14}$/.test(value)) throw pageError('invalid_request', `${label} must be a number.`);
  return Number(value);
}

/** A path's numeric variable (a team's id); anything else is no such page. */
export function idParam(r: PageRequest, name: string): number {
  const value = r.params[name] ?? '';
  if (!/^[1-9]\d{0,14}$/.test(value)) throw pageError('not_found', 'There is no such page.');
  return Number(value);
}

export interface FilterField {
  name: string;
  label: string;
  /** A select of these values (its first option "Any"), or a text field when absent. */
  choices?: ReadonlyArray<readonly [string, string]>;
  type?: 'search' | 'date' | 'number';
}

function filterControl(r: PageRequest, f: FilterField): Html {
  const id = `filter-${f.name}`;
  const current = r.query[f.name] ?? '';
  const control = f.choices
    ? html`<select id="${id}" name="${f.name}">
        <option value="">Any</option>
        ${f.choices.map(([value, label]) => html`<option value="${value}" ${value === current ? html`selected` : undefined}>${label}</option>`)}
      </select>`
    : html`<input type="${f.type ?? 'search'}" id="${id}" name="${f.name}" value="${current}" />`;
  return html`<div>
    <label for="${id}">${f.label}</label>
    ${control}
  </div>`;
}

/** The filters of a list: a GET form back to the list (the values stay in the URL, so a filtered list can be linked). */
export const filterForm = (r: PageRequest, action: string, fields: readonly FilterField[]): Html =>
  html`<form method="get" action="${action}" class="filters" role="search" aria-label="Filters">
    ${fields.map((f) => filterControl(r, f))}
    <button type="submit">Filter</button>
  </form>`;

/** Choices of a closed list whose labels are its values. */
export const choicesOf = (values: readonly string[]): ReadonlyArray<readonly [string, string]> => values.map((v) => [v, v] as const);
