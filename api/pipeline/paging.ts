// Paging parameters of the /v2 lists: defaults, limits and the envelope.
import type { Config } from '../../shared/config.js';
import { adminError } from '../../shared/errors.js';
import type { PageRequest } from '../../shared/core/index.js';

export interface PageParams {
  page?: number;
  per_page?: number;
}

/**
 * Whether a page reaches beyond the paging depth: the one rule every list's paging is checked by (/v2 here, the
 * dashboard's REST routes in mailer-paging.ts, the pages in web/lists.ts). It also keeps a page number far past
 * any list (1e18) away from the store, whose offset would overflow SQLite's integers.
 */
export const beyondDepth = (p: PageRequest, config: Config): boolean => p.page * p.perPage > config.limits.pagingDepth;

/** Page and size with defaults; requests reaching beyond the paging depth are refused. */
export function pageFrom(query: PageParams, config: Config): PageRequest {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? config.limits.pageSizeDefault;
  if (perPage > config.limits.pageSizeMax) {
    throw adminError('validation_failed', `per_page must be between 1 and ${config.limits.pageSizeMax}`, { field: 'per_page' });
  }
  if (beyondDepth({ page, perPage }, config)) {
    throw adminError('paging_too_deep', `Paging reaches beyond ${config.limits.pagingDepth} records; narrow the query instead`, {
      field: 'page',
    });
  }
  return { page, perPage };
}

export const envelope = <T>(rows: T[], total: number, p: PageRequest) => ({ data: rows, total, page: p.page, per_page: p.perPage });
