// Magic-link sign-in (tern-auth/v1, FluentAuth's magic login): POST /login/magic-link asks for a link by email (the
// answer is the same whether or not one went), POST /login/magic-link/verify signs in with the link's token and
// sets the session cookie as a login does. The rules are core/identity/magic-links.ts's and login.ts's.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { dashboardErrorForIdentity, identified } from '../../pipeline/identity-errors.js';
import { clientOf, signedInReply } from './auth-routes.js';
import { MAGIC_LINK_REQUESTED } from '../../presenters/messages.js';

type Route = DashboardRoute<DashboardCaller>;

const requestLink: Route = {
  namespace: 'tern-auth/v1',
  path: '/login/magic-link',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: "Mails a single-use sign-in link when the email is a user's whose account allows it; the answer is the same either way",
      args: Type.Object({ email: Type.String({ description: 'The email address the user signs in with.', minLength: 1, maxLength: 254 }) }),
      async handle({ ctx, params, request, log }) {
        identified(await ctx.core.magicLinks.request({ email: params.email, client: clientOf(request), origin: request.origin }, log));
        return { body: { requested: true, message: MAGIC_LINK_REQUESTED } };
      },
    }),
  ],
};

const verifyLink: Route = {
  namespace: 'tern-auth/v1',
  path: '/login/magic-link/verify',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: 'Signs in with a mailed link’s token (once): sets the session cookie and answers the user and the nonce, as a login does',
      args: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the mailed link (its `token` query parameter).' }) }),
      async handle({ ctx, params, request, log }) {
        const result = await ctx.core.logins.signInWithLink({ token: params.token, ...clientOf(request) }, log);
        if (!result.ok) throw dashboardErrorForIdentity(result.refusal);
        return signedInReply(ctx, request, result, await ctx.core.loginSecurity.landing(result.user, 'login'));
      },
    }),
  ],
};

export const magicLinkRoutes: readonly Route[] = [requestLink, verifyLink];
