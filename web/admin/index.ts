// The platform operator's pages (/admin…), each area's listed by its own module.
import type { Page } from '../page.js';
import { PLATFORM_PAGES } from './platform.js';
import { TENANT_PAGES } from './tenants.js';
import { CREDIT_PAGES } from './credits.js';
import { AUDIT_LOG_PAGES } from './audit-log.js';

export const ADMIN_PAGES: readonly Page[] = [...PLATFORM_PAGES, ...TENANT_PAGES, ...CREDIT_PAGES, ...AUDIT_LOG_PAGES];
