// The page an invitation's link opens, GET /accept-invitation?token=…: a server-rendered form (name, password)
// that posts back to POST /accept-invitation, which accepts the invitation through the core (as the REST route
// /api/tern-auth/v1/accept-invitation does), sets the session cookie and says so. Minimal on purpose (issue 13
// restyles it); every value placed in the HTML is escaped by a maintained library.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeUTF8 as e } from 'entities';
import type { App, Request, Response } from '@tinyhttp/app';
import type { AppContext } from '../context.js';
import type { IdentityRefusal } from '../../core/identity/index.js';
import { dashboardErrorForIdentity } from '../dashboard/identity-errors.js';
import { sessionCookie } from '../dashboard/credentials.js';
import { secureCookies } from '../dashboard/auth-routes.js';
import { originOf } from '../pipeline.js';
import { requestLog } from '../request-id.js';
import { PASSWORD_LENGTH } from '../../core/identity/index.js';

export const ACCEPT_PATH = '/accept-invitation';

/** No framing, no referrer (the URL carries the token), no script, forms only to this origin, nothing cached. */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(title)} · Tern</title></head>
<body><main><h1>${e(title)}</h1>
${content}
</main></body></html>
`;
}

interface FormState {
  token: string;
  email: string;
  role: string;
  name?: string;
  error?: string;
}

function form(s: FormState): string {
  return page(
    'Accept your invitation',
    `<p>You are invited to Tern as <b>${e(s.role)}</b>, with the email ${e(s.email)}. Choose your name and password.</p>
${s.error ? `<p role="alert"><b>${e(s.error)}</b></p>` : ''}
<form method="post" action="${ACCEPT_PATH}">
<input type="hidden" name="token" value="${e(s.token)}">
<p><label>Name <input name="name" required maxlength="100" value="${e(s.name ?? '')}" autocomplete="name"></label></p>
<p><label>Password <input name="password" type="password" required minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}" autocomplete="new-password"></label></p>
<p><button type="submit">Accept and sign in</button></p>
</form>`,
  );
}

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers }).end(html);
}

/** The refusal as the page says it, with the status the REST route would answer. */
function refusalPage(res: ServerResponse, refusal: IdentityRefusal): void {
  const error = dashboardErrorForIdentity(refusal);
  send(res, error.status, page('This invitation cannot be used', `<p>${e(error.message)}</p>`));
}

/** A urlencoded form body of at most `limit` bytes; undefined when larger. */
async function formBody(req: IncomingMessage, limit: number): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function showForm(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = new URL(req.url ?? '/', 'http://local').searchParams.get('token') ?? '';
  const open = await ctx.core.invitations.open(token);
  if (!open.ok) return refusalPage(res, open.refusal);
  send(res, 200, form({ token, email: open.value.email, role: open.value.role }));
}

async function acceptForm(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await formBody(req, ctx.config.api.bodyLimitBytes);
  if (!body) return send(res, 413, page('Too large', '<p>The form sent is too large.</p>'));
  const token = body.get('token') ?? '';
  const name = body.get('name') ?? '';
  const client = { address: req.socket.remoteAddress ?? '', userAgent: req.headers['user-agent'] ?? '' };
  const log = requestLog(ctx.log, req, res, { route: `POST ${ACCEPT_PATH}` });
  const accepted = await ctx.core.invitations.accept({ token, name, password: body.get('password') ?? '', client }, log);
  if (accepted.ok) {
    const secure = secureCookies(ctx, { origin: originOf(req) });
    const welcome = page('Welcome to Tern', `<p>Your account ${e(accepted.value.user.email)} is ready, and you are signed in.</p>`);
    return send(res, 200, welcome, { 'Set-Cookie': sessionCookie(accepted.value.token, secure) });
  }
  // A wrong field is said next to the form, kept filled in (but the password); anything else ends the page.
  if (accepted.refusal.kind !== 'invalid_field') return refusalPage(res, accepted.refusal);
  const open = await ctx.core.invitations.open(token);
  if (!open.ok) return refusalPage(res, open.refusal);
  send(res, 400, form({ token, email: open.value.email, role: open.value.role, name, error: accepted.refusal.message }));
}

/** Mounts the page's GET and POST on the sidecar's app; a failure goes to the app's error handler. */
export function mountAcceptInvitationPage(app: App, ctx: AppContext): void {
  app.get(ACCEPT_PATH, (req: Request, res: Response, next) => void showForm(ctx, req, res).catch(next));
  app.post(ACCEPT_PATH, (req: Request, res: Response, next) => void acceptForm(ctx, req, res).catch(next));
}
