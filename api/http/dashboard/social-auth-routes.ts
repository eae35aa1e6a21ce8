// Sign-in with a provider, as operators set it (tern-auth/v1 /social-auth-settings, FluentAuth's name): per
// provider (Google, GitHub) on or off, the client id, the client secret (written, never read back: only whether
// one is set), Google's issuer, and the redirect URI to register with the provider. Operators only; every save
// audited. Translation only: core/social-sign-in-settings.ts decides. The sign-in itself is the web's
// (api/web/social-sign-in.ts): the provider sends a browser back, not an API client.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { dashboardUrlOf, socialCallbackPath } from '../../presenters/links.js';
import { SOCIAL_PROVIDERS } from '../../../shared/domain/social-sign-in.js';
import type { SocialProviderView } from '../../../shared/core/social-sign-in-settings.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Incoming } from '../../pipeline/pipeline.js';

type Route = DashboardRoute<DashboardCaller>;

const settingsView = (ctx: AppContext, request: Pick<Incoming, 'origin'>, views: SocialProviderView[]) => ({
  settings: Object.fromEntries(
    views.map((v) => [
      v.provider,
      {
        enabled: v.enabled,
        client_id: v.clientId,
        client_secret_set: v.clientSecretSet,
        issuer: v.issuer,
        redirect_uri: `${dashboardUrlOf(ctx, request)}${socialCallbackPath(v.provider)}`,
      },
    ]),
  ),
});

const socialAuthSettings: Route = {
  namespace: 'tern-auth/v1',
  path: '/social-auth-settings',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Sign-in with a provider: per provider whether it is on, its client id, whether a secret is set, its issuer and the redirect URI to register (operators)',
      args: Type.Object({}),
      async handle({ ctx, user, request }) {
        operatorOf(user);
        return { body: settingsView(ctx, request, await ctx.core.socialSignInSettings.list()) };
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Changes one provider’s sign-in settings; each field checked, or nothing changes (operators; audited without the secret)',
      args: Type.Object({
        provider: oneOf(SOCIAL_PROVIDERS, { description: 'Which provider: google (OpenID Connect) or github (OAuth 2).' }),
        enabled: Type.Optional(Type.Boolean({ description: 'Whether the sign-in page offers it (needs a client id and secret).' })),
        client_id: Type.Optional(Type.String({ maxLength: 255, description: 'The OAuth client id the provider gave.' })),
        client_secret: Type.Optional(Type.String({ maxLength: 512, description: 'The client secret; stored encrypted and never answered ("" removes it).' })),
        issuer: Type.Optional(Type.String({ maxLength: 2048, description: 'Google only: the OpenID Connect issuer (https://accounts.google.com by default).' })),
      }),
      async handle({ ctx, user, params, request, log }) {
        const { user: operator } = operatorOf(user);
        const change = { enabled: params.enabled, clientId: params.client_id, clientSecret: params.client_secret, issuer: params.issuer };
        return { body: settingsView(ctx, request, valueOf(await ctx.core.socialSignInSettings.save(operator, params.provider, change, log))) };
      },
    }),
  ],
};

export const socialAuthRoutes: Route[] = [socialAuthSettings];
