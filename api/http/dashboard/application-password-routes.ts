// The signed-in user's application passwords, as WordPress's REST API serves them under wp/v2: list, create
// (the password shown once, in groups of four) and revoke. Only the hash of a password is ever kept.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { signedInUser, type DashboardCaller } from './authentication.js';
import { identified } from '../../pipeline/identity-errors.js';
import { applicationPasswordView } from './views.js';

type Route = DashboardRoute<DashboardCaller>;

const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

const collection: Route = {
  namespace: 'wp/v2',
  path: '/users/me/application-passwords',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: "The signed-in user's application passwords (never the passwords themselves)",
      args: Type.Object({}),
      handle: async ({ ctx, user }) => ({ body: (await ctx.core.applicationPasswords.list(signedInUser(user).user)).map(applicationPasswordView) }),
    }),
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'Creates an application password; the password is in this answer only',
      args: Type.Object({
        name: Type.String({ description: 'The name of the application password.', minLength: 1, maxLength: 100 }),
        app_id: Type.Optional(Type.String({ description: 'A UUID the application gives to identify itself.', format: 'uuid' })),
      }),
      async handle({ ctx, user, params, log }) {
        const created = identified(await ctx.core.applicationPasswords.create(signedInUser(user).user, { name: params.name, appId: params.app_id }, log));
        return { status: 201, body: { ...applicationPasswordView(created), password: created.password } };
      },
    }),
  ],
};

const item: Route = {
  namespace: 'wp/v2',
  path: '/users/me/application-passwords/{uuid}',
  vars: { uuid: UUID_PATTERN },
  endpoints: [
    endpoint({
      methods: ['DELETE'],
      permission: 'self',
      allowBatch: true,
      summary: 'Revokes an application password: it stops working at once',
      args: Type.Object({ uuid: Type.String({ format: 'uuid' }) }),
      async handle({ ctx, user, params, log }) {
        const me = signedInUser(user).user;
        const previous = (await ctx.core.applicationPasswords.list(me)).find((p) => p.uuid.toLowerCase() === params.uuid.toLowerCase());
        identified(await ctx.core.applicationPasswords.revoke(me, previous?.uuid ?? params.uuid, log));
        return { body: { deleted: true, previous: previous ? applicationPasswordView(previous) : null } };
      },
    }),
  ],
};

export const applicationPasswordRoutes: readonly Route[] = [collection, item];
