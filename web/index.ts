// The web pages as the API's listener serves them, next to /api: each page is a method, a path and a handler
// that returns what to answer; this module runs it (metrics, the request's logger, failures as error pages).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, Request, Response } from '@tinyhttp/app';
import type { AppContext } from '../http/context.js';
import { requestLog } from '../http/request-id.js';
import type { Logger } from '../shared/log.js';
import { observeHttp } from '../shared/metrics.js';
import { failurePage, writeReply, type PageReply } from './reply.js';
import { pageRequestOf, type PageRequest } from './request.js';
import { showSignIn, signIn, SIGN_IN_PATH, SIGN_IN_TITLE } from './sign-in.js';
import { ACCEPT_INVITATION_PATH, ACCEPT_INVITATION_TITLE, acceptInvitation, showAcceptInvitation } from './accept-invitation.js';
import { AUTHORIZE_PATH, AUTHORIZE_TITLE, decideAuthorization, showAuthorization } from './authorize-application.js';

interface Page {
  method: 'GET' | 'POST';
  path: string;
  /** The title of its error pages. */
  title: string;
  handle(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply>;
}

export const PAGES: readonly Page[] = [
  { method: 'GET', path: SIGN_IN_PATH, title: SIGN_IN_TITLE, handle: showSignIn },
  { method: 'POST', path: SIGN_IN_PATH, title: SIGN_IN_TITLE, handle: signIn },
  { method: 'GET', path: AUTHORIZE_PATH, title: 'Cannot Authorize Application', handle: showAuthorization },
  { method: 'POST', path: AUTHORIZE_PATH, title: AUTHORIZE_TITLE, handle: decideAuthorization },
  { method: 'GET', path: ACCEPT_INVITATION_PATH, title: ACCEPT_INVITATION_TITLE, handle: showAcceptInvitation },
  { method: 'POST', path: ACCEPT_INVITATION_PATH, title: ACCEPT_INVITATION_TITLE, handle: acceptInvitation },
];

async function serve(ctx: AppContext, page: Page, req: IncomingMessage, res: ServerResponse): Promise<void> {
  observeHttp(res, page.method, page.path);
  const log = requestLog(ctx.log, req, res, { route: `${page.method} ${page.path}` });
  let reply: PageReply;
  try {
    reply = await page.handle(ctx, pageRequestOf(req), log);
  } catch (err) {
    reply = failurePage(page.title, err, log);
  }
  writeReply(res, reply);
}

/** Mounts every page on the API's app. */
export function mountWebPages(app: App, ctx: AppContext): void {
  for (const page of PAGES) {
    const handler = (req: Request, res: Response) => void serve(ctx, page, req, res);
    if (page.method === 'GET') app.get(page.path, handler);
    else app.post(page.path, handler);
  }
}
