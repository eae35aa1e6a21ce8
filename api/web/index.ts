// The web pages as the API's listener serves them, next to /api and /v2: the hashed static files under /assets,
// and every page, each area's pages listed by its own module.
import type { App, Request, Response } from '@tinyhttp/app';
import type { AppContext } from '../pipeline/context.js';
import { ASSET_PREFIX, serveAsset } from './assets.js';
import { publicPage, type Page } from './page.js';
import { servePage } from './group.js';
import { showSignIn, signIn, SIGN_IN_PATH, SIGN_IN_TITLE } from './sign-in.js';
import { ACCEPT_INVITATION_PATH, ACCEPT_INVITATION_TITLE, acceptInvitation, showAcceptInvitation } from './accept-invitation.js';
import { AUTHORIZE_PATH, AUTHORIZE_TITLE, decideAuthorization, showAuthorization } from './authorize-application.js';
import { SESSION_PAGES } from './session-pages.js';
import { SOCIAL_SIGN_IN_PAGES } from './social-sign-in.js';
import { DASHBOARD_PAGES, showSsoAccept, ssoAccept, SSO_ACCEPT_PATH, SSO_ACCEPT_TITLE } from './single-sign-on.js';
import { OVERVIEW_PAGES } from './account/overview.js';
import { PASSWORD_RESET_PAGES } from './password-reset.js';
import { DOMAIN_PAGES } from './account/domains.js';
import { LOG_PAGES } from './account/log-pages.js';
import { STATISTICS_PAGES } from './account/statistics.js';
import { PROFILE_PAGES } from './account/profile.js';
import { SECURITY_PAGES } from './account/security.js';
import { TEAM_PAGES } from './account/team.js';
import { SUPPORT_PAGES } from './support/account.js';
import { ADMIN_PAGES } from './admin/index.js';
import { BILLING_PAGES } from './account/billing.js';
import { KEY_PAGES } from './account/keys.js';
import { WEBHOOK_PAGES } from './account/webhooks.js';
import { BRANDING_PAGES, branded } from './branding.js';
import { MAGIC_LINK_PAGES } from './magic-link.js';
import { MEDIA_PAGES } from './media.js';

export const PAGES: readonly Page[] = [
  publicPage({ method: 'GET', path: SIGN_IN_PATH, title: SIGN_IN_TITLE, handle: branded(showSignIn) }),
  publicPage({ method: 'POST', path: SIGN_IN_PATH, title: SIGN_IN_TITLE, handle: branded(signIn) }),
  publicPage({ method: 'GET', path: AUTHORIZE_PATH, title: 'Cannot Authorize Application', handle: showAuthorization }),
  publicPage({ method: 'POST', path: AUTHORIZE_PATH, title: AUTHORIZE_TITLE, handle: decideAuthorization }),
  publicPage({ method: 'GET', path: ACCEPT_INVITATION_PATH, title: ACCEPT_INVITATION_TITLE, handle: showAcceptInvitation }),
  publicPage({ method: 'POST', path: ACCEPT_INVITATION_PATH, title: ACCEPT_INVITATION_TITLE, handle: acceptInvitation }),
  publicPage({ method: 'GET', path: SSO_ACCEPT_PATH, title: SSO_ACCEPT_TITLE, handle: showSsoAccept }),
  publicPage({ method: 'POST', path: SSO_ACCEPT_PATH, title: SSO_ACCEPT_TITLE, handle: ssoAccept }),
  ...SESSION_PAGES,
  ...SOCIAL_SIGN_IN_PAGES,
  ...DASHBOARD_PAGES,
  ...OVERVIEW_PAGES,
  ...PASSWORD_RESET_PAGES,
  ...DOMAIN_PAGES,
  ...LOG_PAGES,
  ...STATISTICS_PAGES,
  ...PROFILE_PAGES,
  ...SECURITY_PAGES,
  ...TEAM_PAGES,
  ...SUPPORT_PAGES,
  ...ADMIN_PAGES,
  ...BILLING_PAGES,
  ...KEY_PAGES,
  ...WEBHOOK_PAGES,
  ...BRANDING_PAGES,
  ...MAGIC_LINK_PAGES,
  ...MEDIA_PAGES,
];

/** Mounts the static files and every page on the API's app. */
export function mountWebPages(app: App, ctx: AppContext): void {
  app.get(`${ASSET_PREFIX}:file`, (req: Request, res: Response) => serveAsset(req, res));
  for (const page of PAGES) {
    const handler = (req: Request, res: Response) => void servePage(ctx, page, req, res, { ...req.params });
    if (page.method === 'GET') app.get(page.path, handler);
    else app.post(page.path, handler);
  }
}
