// The dashboard interface as the API serves it: its routes (the authentication namespace, the signed-in user's
// application passwords; the mailer namespace's routes come next) and its authentication strategy (a session
// cookie with its nonce, or an application password).
import { createDashboard, type Dashboard } from './group.js';
import type { DashboardRoute } from './route.js';
import { SITE } from './site.js';
import { dashboardAuthentication, type DashboardCaller } from './authentication.js';
import { authRoutes } from './auth-routes.js';
import { applicationPasswordRoutes } from './application-password-routes.js';
import { userRoutes } from './user-routes.js';
import { mailerRoutes2 } from './mailer-routes-2.js';
import { domainStatisticsDnsRoutes } from './domain-statistics-dns-routes.js';
import { dnsInstructionRoutes } from './dns-instruction-routes.js';
import { invitationRoutes } from './invitation-routes.js';
import { profileRoutes } from './profile-routes.js';
import { dmarcRoutes } from './dmarc-routes.js';
import { accountRoutes } from './account-routes.js';
import { billingRoutes } from './billing-routes.js';
import { adminCreditRoutes } from './admin-credit-routes.js';
import { invoiceRoutes } from './invoice-routes.js';
import { paymentRoutes } from './payment-routes.js';
import { adminTeamRoutes } from './admin-tenant-routes.js';
import { adminQueueRoutes } from './admin-queue-routes.js';
import { adminAuditLogRoutes } from './admin-audit-log-routes.js';
import { adminDomainRoutes } from './admin-domain-routes.js';
import { adminLogRoutes } from './admin-log-routes.js';
import { adminSuppressionRoutes } from './admin-suppression-routes.js';
import { adminInvitationRoutes } from './admin-invitation-routes.js';
import { passwordResetRoutes } from './password-reset-routes.js';
import { supportTicketRoutes } from './support-routes.js';
import { supportFileRoutes } from './support-file-routes.js';
import { supportPortalRoutes } from './support-portal-routes.js';
import { emailTemplateRoutes } from './email-template-routes.js';
import { socialAuthRoutes } from './social-auth-routes.js';
import { integrityRoutes } from './integrity-routes.js';
import { singleSignOnRoutes } from './single-sign-on-routes.js';
import { brandingRoutes } from './branding-routes.js';
import { mediaRoutes } from './media-routes.js';
import { magicLinkRoutes } from './magic-link-routes.js';
import { wpPostRoutes } from './wp-post-routes.js';
import { wpTemplateRoutes } from './wp-template-routes.js';
import { wpTermRoutes } from './wp-term-routes.js';
import { wpMenuRoutes } from './wp-menu-routes.js';
import { wpFontRoutes } from './wp-font-routes.js';
import { wpGlobalStylesRoutes } from './wp-global-styles-routes.js';
import { siteHealthRoutes } from './site-health-routes.js';
import { oembedRoutes } from './oembed-routes.js';
import { urlDetailsRoutes } from './url-details-routes.js';

export { SITE } from './site.js';

/** The product's dashboard routes. */
export const dashboardRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [
  ...authRoutes,
  ...applicationPasswordRoutes,
  // After the application passwords: /users/me/application-passwords is theirs, /users/me and /users/{id} are these.
  ...userRoutes,
  ...mailerRoutes2,
  ...domainStatisticsDnsRoutes,
  ...dnsInstructionRoutes,
  ...invitationRoutes,
  ...profileRoutes,
  ...dmarcRoutes,
  ...accountRoutes,
  ...billingRoutes,
  ...adminCreditRoutes,
  ...invoiceRoutes,
  ...paymentRoutes,
  ...adminTeamRoutes,
  ...adminQueueRoutes,
  ...adminAuditLogRoutes,
  ...adminDomainRoutes,
  ...adminLogRoutes,
  ...adminSuppressionRoutes,
  ...adminInvitationRoutes,
  ...passwordResetRoutes,
  ...supportTicketRoutes,
  ...supportFileRoutes,
  ...supportPortalRoutes,
  ...emailTemplateRoutes,
  ...socialAuthRoutes,
  ...integrityRoutes,
  ...singleSignOnRoutes,
  ...brandingRoutes,
  ...mediaRoutes,
  ...magicLinkRoutes,
  ...wpPostRoutes,
  ...wpTemplateRoutes,
  ...wpTermRoutes,
  ...wpMenuRoutes,
  ...wpFontRoutes,
  ...wpGlobalStylesRoutes,
  ...siteHealthRoutes,
  ...oembedRoutes,
  ...urlDetailsRoutes,
];

export const productDashboard = (): Dashboard => createDashboard({ auth: dashboardAuthentication, routes: dashboardRoutes, site: SITE });
