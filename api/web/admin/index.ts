// The platform operator's pages (/admin…), each area's listed by its own module.
import type { Page } from '../page.js';
import { PLATFORM_PAGES } from './platform.js';
import { ADMIN_TEAM_PAGES } from './tenants.js';
import { ADMIN_DOMAIN_PAGES } from './domains.js';
import { ADMIN_LOG_PAGES } from './logs.js';
import { CREDIT_PAGES } from './credits.js';
import { ADMIN_INVITATION_PAGES } from './invitations.js';
import { ADMIN_SUPPORT_PAGES } from './support.js';
import { ADMIN_SUPPORT_SETTINGS_PAGES } from './support-settings.js';
import { ADMIN_SUPPRESSION_PAGES } from './suppressions.js';
import { AUDIT_LOG_PAGES } from './audit-log.js';
import { SYSTEM_MAIL_PAGES } from './system-mail.js';
import { EMAIL_TEMPLATE_PAGES } from './email-templates.js';
import { INTEGRITY_PAGES } from './integrity.js';
import { SIGN_IN_PROVIDER_PAGES } from './sign-in-providers.js';
import { BRANDING_PAGES } from './branding.js';
import { SINGLE_SIGN_ON_PAGES } from './single-sign-on.js';
import { SITE_HEALTH_PAGES } from './site-health.js';

export const ADMIN_PAGES: readonly Page[] = [
  ...PLATFORM_PAGES,
  ...ADMIN_TEAM_PAGES,
  ...ADMIN_DOMAIN_PAGES,
  ...ADMIN_LOG_PAGES,
  ...CREDIT_PAGES,
  ...ADMIN_INVITATION_PAGES,
  ...ADMIN_SUPPORT_PAGES,
  ...ADMIN_SUPPORT_SETTINGS_PAGES,
  ...ADMIN_SUPPRESSION_PAGES,
  ...AUDIT_LOG_PAGES,
  ...SYSTEM_MAIL_PAGES,
  ...EMAIL_TEMPLATE_PAGES,
  ...INTEGRITY_PAGES,
  ...SIGN_IN_PROVIDER_PAGES,
  ...BRANDING_PAGES,
  ...SINGLE_SIGN_ON_PAGES,
  ...SITE_HEALTH_PAGES,
];
