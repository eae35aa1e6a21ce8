// Single sign-on between Tern dashboards (tern-auth/v1, FluentAuth's child-sites): operators register the
// dashboards this one sends users to (child-sites) and accepts users from (parent-sites, a route of Tern's own);
// a signed-in user asks for a sign-in link to a child; a child may ask this dashboard to validate a token (public,
// the child proves itself with the pair's secret). Translation only: core/identity/single-sign-on.ts decides.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type AnyEndpoint, type DashboardRoute } from './route.js';
import { operatorOf, signedInUser, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { dashboardError, tooManyRequests, type DashboardError } from '../../pipeline/dashboard-errors.js';
import { clientOf } from './auth-routes.js';
import { SSO_NAME_MAX, type SsoSite } from '../../../shared/domain/single-sign-on.js';
import type { ChildRegistration, SsoRefusal } from '../../../shared/core/identity/index.js';
import { wpDate } from './views.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'tern-auth/v1';

const siteView = (s: SsoSite) => ({ id: s.id, site_id: s.siteId, name: s.name, url: s.url, created_at: wpDate(s.createdAt) });

/** The registration's answer: the site, and what the other side's operator types in, the secret shown this once. */
const registeredView = (r: ChildRegistration, parentUrl: string | null) => ({
  site: siteView(r.site),
  secret: r.secret,
  connection: { parent_url: parentUrl, site_id: r.site.siteId, secret: r.secret },
});

/** Every refused token alike (a prober learns nothing from the answer); a full window is 429. */
export function ssoTokenError(refusal: SsoRefusal): DashboardError {
  if (refusal.kind === 'throttled') return tooManyRequests('Too many sign-in tokens from your address; try again later.', refusal.retryAfterS);
  return dashboardError(
    'tern_sso_token_invalid',
    'This sign-in token is not valid: it is unknown, altered, expired or used already. Start again from the other dashboard.',
  );
}

const at = (path: string, endpoints: Array<AnyEndpoint<DashboardCaller>>, vars?: Record<string, string>): Route => ({
  namespace: NAMESPACE,
  path,
  ...(vars ? { vars } : {}),
  endpoints,
});

const nameArg = Type.String({ maxLength: 1000, description: `The dashboard’s name as users see it (1 to ${SSO_NAME_MAX} characters).` });
const urlArg = Type.String({ maxLength: 2048, description: 'The other dashboard’s origin: https://host[:port] (http only on loopback, in tests).' });

const remover = (summary: string): AnyEndpoint<DashboardCaller> =>
  endpoint({
    methods: ['DELETE'],
    permission: 'operator',
    summary,
    args: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
    handle: async ({ ctx, user, params }) => {
      const { user: operator } = operatorOf(user);
      return { body: { deleted: true, previous: siteView(valueOf(await ctx.core.singleSignOn.remove(operator, params.id))) } };
    },
  });

const children = at('/child-sites', [
  endpoint({
    methods: ['GET'],
    permission: 'operator',
    summary: 'The dashboards this one sends its users to by single sign-on (operators; never their secrets)',
    args: Type.Object({}),
    handle: async ({ ctx, user }) => {
      operatorOf(user);
      return { body: { sites: (await ctx.core.singleSignOn.list('child')).map(siteView) } };
    },
  }),
  endpoint({
    methods: ['POST'],
    permission: 'operator',
    summary: 'Registers a child dashboard: answers its site id and shared secret, shown this once (operators; audited)',
    args: Type.Object({ name: nameArg, url: urlArg }),
    handle: async ({ ctx, user, params }) => {
      const { user: operator } = operatorOf(user);
      const registered = valueOf(await ctx.core.singleSignOn.registerChild(operator, { name: params.name, url: params.url }));
      return { status: 201, body: registeredView(registered, ctx.config.dashboard.publicUrl) };
    },
  }),
]);

const parents = at('/parent-sites', [
  endpoint({
    methods: ['GET'],
    permission: 'operator',
    summary: 'The dashboards this one accepts users from by single sign-on (operators; never their secrets)',
    args: Type.Object({}),
    handle: async ({ ctx, user }) => {
      operatorOf(user);
      return { body: { sites: (await ctx.core.singleSignOn.list('parent')).map(siteView) } };
    },
  }),
  endpoint({
    methods: ['POST'],
    permission: 'operator',
    summary: 'Registers a parent dashboard with the site id and secret its operator was shown (operators; audited)',
    args: Type.Object({
      name: nameArg,
      url: urlArg,
      site_id: Type.String({ maxLength: 100, description: 'The site id the parent answered when it registered this dashboard.' }),
      secret: Type.String({ maxLength: 100, description: 'The secret the parent answered, once.' }),
    }),
    handle: async ({ ctx, user, params }) => {
      const { user: operator } = operatorOf(user);
      const wanted = { name: params.name, url: params.url, siteId: params.site_id, secret: params.secret };
      return { status: 201, body: { site: siteView(valueOf(await ctx.core.singleSignOn.registerParent(operator, wanted)).site) } };
    },
  }),
]);

const loginUrl = at(
  '/child-sites/{id}/login-url',
  [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'A sign-in link to a child dashboard for the signed-in user: signed, single use, short-lived',
      args: Type.Object({
        id: Type.Integer({ minimum: 1 }),
        redirect_to: Type.Optional(Type.String({ maxLength: 500, description: 'A path of the child dashboard to land on (its home when left out).' })),
      }),
      handle: async ({ ctx, user, params }) => {
        const me = signedInUser(user).user;
        const link = valueOf(await ctx.core.singleSignOn.loginLink(me, params.id, params.redirect_to));
        return { body: { site: siteView(link.site), url: link.url, expires_at: link.expiresAt } };
      },
    }),
  ],
  { id: DIGITS },
);

const validateToken = at('/child-sites/validate-token', [
  endpoint({
    methods: ['POST'],
    permission: 'public',
    summary: 'For a child dashboard: checks a token this dashboard signed for it and spends it; answers the user’s email (the child proves itself with the secret)',
    args: Type.Object({
      site_id: Type.String({ maxLength: 100, description: 'The child’s site id.' }),
      secret: Type.String({ maxLength: 100, description: 'The pair’s shared secret (compared in constant time).' }),
      token: Type.String({ maxLength: 4000, description: 'The token the user brought to the child.' }),
    }),
    handle: async ({ ctx, params, request, log }) => {
      const checked = await ctx.core.singleSignOn.validate({ siteId: params.site_id, secret: params.secret, token: params.token }, clientOf(request), log);
      if (!checked.ok) throw ssoTokenError(checked.refusal);
      return { body: { valid: true, email: checked.email, expires_at: checked.expiresAt, redirect_to: checked.redirectTo } };
    },
  }),
]);

export const singleSignOnRoutes: readonly Route[] = [
  children,
  validateToken,
  loginUrl,
  at('/child-sites/{id}', [remover('Removes a child dashboard: no more sign-in links to it (operators; audited)')], { id: DIGITS }),
  parents,
  at('/parent-sites/{id}', [remover('Removes a parent dashboard: its tokens are refused from now on (operators; audited)')], { id: DIGITS }),
];
