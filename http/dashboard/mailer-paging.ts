// Paging of the mailer collections as the core reads them: WordPress's page and per_page, refused beyond the
// configured paging depth as /v2 refuses it (no list is read deeper than that), as a `page` param error.
import type { Config } from '../../shared/config.js';
import type { PageRequest } from '../../core/index.js';
import type { PageRequest as WpPage } from './collection.js';
import { invalidParam } from './refusal-errors.js';

export function corePage(params: WpPage, config: Config): PageRequest {
  const depth = config.limits.pagingDepth;
  if (params.page * params.per_page > depth) {
    throw invalidParam('page', 'rest_paging_too_deep', `Paging reaches beyond ${depth} records; narrow the query instead.`);
  }
  return { page: params.page, perPage: params.per_page };
}
