// Paging of the dashboard's collections: WordPress's page and per_page, refused beyond the configured paging
// depth as /v2 refuses it (no list is read deeper than that), as a `page` param error. The check is made once,
// by the route group, for every endpoint declaring the collection args, so no list can skip it (a page number
// of 1e18 reaching the store would overflow SQLite's integers); the handlers only map the args.
import type { TObject } from '@sinclair/typebox';
import type { Config } from '../../../shared/config.js';
import type { PageRequest } from '../../../shared/core/index.js';
import { beyondDepth } from '../../pipeline/paging.js';
import type { PageRequest as WpPage } from './collection.js';
import { invalidParam } from '../../pipeline/refusal-errors.js';

/** The core's paging of a collection's args (already checked against the depth by checkPaging). */
export const corePage = (params: WpPage): PageRequest => ({ page: params.page, perPage: params.per_page });

/** Throws the `page` param error when an endpoint taking the collection args is asked for a page beyond the depth. */
export function checkPaging(args: TObject, params: Record<string, unknown>, config: Config): void {
  if (!('page' in args.properties) || !('per_page' in args.properties)) return;
  const { page, per_page: perPage } = params;
  if (typeof page !== 'number' || typeof perPage !== 'number') return;
  if (beyondDepth({ page, perPage }, config)) {
    const depth = config.limits.pagingDepth;
    throw invalidParam('page', 'rest_paging_too_deep', `Paging reaches beyond ${depth} records; narrow the query instead.`);
  }
}
