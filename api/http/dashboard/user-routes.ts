// WordPress's users collection under wp/v2 (WP_REST_Users_Controller): list, read, create, update and delete
// the dashboard's users, and /users/me for the caller. The rules of who sees and changes whom are the core's
// (UserDirectory); this file reads WordPress's args and writes WordPress's answers.
import { Type, type TProperties } from '@sinclair/typebox';
import { endpoint, DIGITS, type DashboardRoute, type Reply } from './route.js';
import type { DashboardCaller } from './authentication.js';
import type { DirectoryActor, DirectoryChange } from '../../../shared/core/identity/index.js';
import { USER_ORDERS, type UserOrder } from '../../../shared/domain/user-profile.js';
import { identified } from '../../pipeline/identity-errors.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { contextArg, listArgs, window, wpPage, type RestContext } from './wp-collection.js';
import { userUrl, wpUserView } from './wp-user-view.js';
import type { EndpointInput } from './route.js';

type Route = DashboardRoute<DashboardCaller>;
type Input<P> = EndpointInput<P, DashboardCaller>;

const actorOf = (caller: DashboardCaller | undefined): DirectoryActor =>
  caller === undefined ? undefined : caller.kind === 'operator' ? { kind: 'operator', user: caller.user } : { kind: 'account', user: caller.user, acting: caller.acting };

const text = (description: string, options: Record<string, unknown> = {}) => Type.Optional(Type.String({ description, ...options }));

/** The fields a create and an update take (WordPress's item schema, writable part). */
const writable: TProperties = {
  name: text('Display name for the user.'),
  first_name: text('First name for the user.'),
  last_name: text('Last name for the user.'),
  url: text('URL of the user.'),
  description: text('Description of the user.'),
  locale: text('Locale for the user.'),
  nickname: text('The nickname for the user.'),
  slug: text('An alphanumeric identifier for the user.'),
  roles: Type.Optional(Type.Array(Type.String(), { description: 'Roles assigned to the user (one of owner, admin, viewer; operator for operators).' })),
  meta: Type.Optional(Type.Object({}, { description: 'Meta fields (none are registered).' })),
};

const updateArgs = Type.Object({
  ...writable,
  username: text('Login name for the user; it cannot change.'),
  email: text('The email address for the user.', { format: 'email' }),
  password: text('Password for the user.'),
  current_password: text('Your own current password: needed to change your own email or password.'),
});

interface WritableParams {
  name?: string;
  first_name?: string;
  last_name?: string;
  url?: string;
  description?: string;
  locale?: string;
  nickname?: string;
  slug?: string;
  roles?: string[];
  email?: string;
  password?: string;
  current_password?: string;
}

/** A user has one role: WordPress's list of roles with one. */
function roleOf(roles: string[] | undefined): string | undefined {
  if (roles === undefined || roles.length === 0) return undefined;
  if (roles.length > 1) throw dashboardError('rest_invalid_param', 'Invalid parameter(s): roles', { params: { roles: 'A user has one role.' } });
  return roles[0];
}

const changeOf = (p: WritableParams): DirectoryChange => ({
  name: p.name,
  firstName: p.first_name,
  lastName: p.last_name,
  url: p.url,
  description: p.description,
  locale: p.locale,
  nickname: p.nickname,
  slug: p.slug,
  email: p.email,
  role: roleOf(p.roles),
  password: p.password,
  currentPassword: p.current_password,
});

/** The id a /users/me request acts on: the caller's; WordPress answers an anonymous one rest_not_logged_in. */
function meOf(user: DashboardCaller | undefined): number {
  if (!user) throw dashboardError('rest_not_logged_in', 'You are not currently logged in.');
  return user.user.id;
}

async function getOne({ ctx, user, params, request }: Input<{ context: RestContext }>, id: number): Promise<Reply> {
  const found = identified(await ctx.core.userDirectory.get(actorOf(user), id, params.context === 'edit'));
  return { body: wpUserView(request, found, params.context) };
}

async function updateOne({ ctx, user, params, request, log }: Input<WritableParams & { username?: string }>, id: number): Promise<Reply> {
  const actor = actorOf(user);
  if (params.username !== undefined) {
    const current = identified(await ctx.core.userDirectory.get(actor, id));
    if (params.username !== current.profile.username)
      throw dashboardError('rest_user_invalid_argument', "Username isn't editable.", { params: { username: "Username isn't editable." } });
  }
  const change = { ...changeOf(params), keepSessionId: user?.session?.id };
  const updated = identified(await ctx.core.userDirectory.update(actor, id, change, log));
  return { body: wpUserView(request, updated, 'edit') };
}

const deleteArgs = Type.Object({
  force: Type.Boolean({ description: 'Required to be true, as users do not support trashing.', default: false }),
  reassign: Type.Union([Type.Integer({ minimum: 0 }), Type.Boolean()], {
    description: 'Reassign the deleted user’s posts and links to this user ID (false: delete them).',
  }),
});

async function deleteOne({ ctx, user, params, request, log }: Input<{ force: boolean; reassign: number | boolean }>, id: number): Promise<Reply> {
  const actor = actorOf(user);
  // As WordPress: the right to delete is checked first, then that the caller asked for a deletion (no trash).
  identified(await ctx.core.userDirectory.deletable(actor, id));
  if (!params.force) throw dashboardError('rest_trash_not_supported', "Users do not support trashing. Set 'force' to true to delete.");
  const reassign = typeof params.reassign === 'number' && params.reassign > 0 ? params.reassign : null;
  if (params.reassign === true) throw dashboardError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.');
  const previous = identified(await ctx.core.userDirectory.remove(actor, id, reassign, log));
  return { body: { deleted: true, previous: wpUserView(request, previous, 'edit') } };
}

/** The collection's list args, as listArgs declares them. */
interface ListParams {
  context: RestContext;
  page: number;
  per_page: number;
  offset?: number;
  search?: string;
  include: number[];
  exclude: number[];
  slug?: string[];
  order: 'asc' | 'desc';
  orderby: UserOrder;
}

const collection: Route = {
  namespace: 'wp/v2',
  path: '/users',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'public',
      summary: 'Lists users (WordPress’s users collection): those of your account, every user for an operator',
      args: Type.Object({
        ...listArgs(USER_ORDERS, 'name', { defaultOrder: 'asc' }),
        roles: Type.Optional(Type.Array(Type.String(), { description: 'Limit result set to users matching at least one specific role provided.' })),
        who: Type.Optional(Type.String({ enum: ['authors'], description: 'Limit result set to users who are considered authors.' })),
        has_published_posts: Type.Optional(
          Type.Union([Type.Boolean(), Type.Array(Type.String())], { description: 'Limit result set to users who have published posts.' }),
        ),
      }),
      async handle({ ctx, user, params: checked, request }) {
        // listArgs declares these (its properties are untyped): the cast names what the checked params hold.
        const params = checked as typeof checked & ListParams;
        const { offset, limit } = window(params);
        const page = identified(
          await ctx.core.userDirectory.list(actorOf(user), {
            include: params.include,
            exclude: params.exclude,
            search: params.search || undefined,
            slugs: params.slug,
            roles: params.roles,
            orderby: params.orderby,
            order: params.order,
            offset,
            limit,
            edit: params.context === 'edit',
          }),
        );
        return wpPage(
          request,
          params,
          page.items.map((u) => wpUserView(request, u, params.context)),
          page.total,
          'empty',
        );
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'Creates a user (username, email and password required) on the team you act on',
      args: Type.Object({
        ...writable,
        username: Type.String({ description: 'Login name for the user.' }),
        email: Type.String({ description: 'The email address for the user.', format: 'email' }),
        password: Type.String({ description: 'Password for the user.' }),
      }),
      async handle({ ctx, user, params, request, log }) {
        const change = changeOf(params);
        const made = identified(
          await ctx.core.userDirectory.create(
            actorOf(user),
            {
              username: params.username,
              email: params.email,
              password: params.password,
              name: change.name,
              firstName: change.firstName,
              lastName: change.lastName,
              url: change.url,
              description: change.description,
              locale: change.locale,
              nickname: change.nickname,
              slug: change.slug,
              role: change.role,
            },
            log,
          ),
        );
        return { status: 201, body: wpUserView(request, made, 'edit'), headers: { Location: userUrl(request, made.user.id) } };
      },
    }),
  ],
};

const item: Route = {
  namespace: 'wp/v2',
  path: '/users/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'public',
      summary: 'A user, in the context asked for (edit: the private fields, for whoever may edit the user)',
      args: Type.Object({ id: Type.Integer({ description: 'Unique identifier for the user.' }), context: contextArg() }),
      handle: (input) => getOne(input, input.params.id),
    }),
    endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      permission: 'self',
      summary: 'Changes a user: the profile, email, role (never above your own) and password',
      args: Type.Object({ id: Type.Integer({ description: 'Unique identifier for the user.' }), ...updateArgs.properties }),
      handle: (input) => updateOne(input, input.params.id),
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'self',
      summary: 'Deletes a user (force=true) and gives what it authored to `reassign` (false: deleted with it)',
      args: Type.Object({ id: Type.Integer({ description: 'Unique identifier for the user.' }), ...deleteArgs.properties }),
      handle: (input) => deleteOne(input, input.params.id),
    }),
  ],
};

const me: Route = {
  namespace: 'wp/v2',
  path: '/users/me',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'public',
      summary: 'The signed-in user, in WordPress’s user shape',
      args: Type.Object({ context: contextArg() }),
      handle: (input) => getOne(input, meOf(input.user)),
    }),
    endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      permission: 'self',
      summary: 'Changes the signed-in user’s profile (its own email and password with current_password)',
      args: updateArgs,
      handle: (input) => updateOne(input, meOf(input.user)),
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'self',
      summary: 'Deletes the signed-in user (force=true, reassign)',
      args: deleteArgs,
      handle: (input) => deleteOne(input, meOf(input.user)),
    }),
  ],
};

export const userRoutes: readonly Route[] = [collection, me, item];
