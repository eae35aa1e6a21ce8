// The mailer's team creation: POST /api/create-team, as POST /v2/teams (the core's rules: only an account
// creates teams, a name of 2 to 100 characters, at most the configured number). Translation only.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { teamItem } from '../admin/teams.js';
import { TEAM_NAME_LENGTH } from '../../../shared/core/teams.js';

type Route = DashboardRoute<DashboardCaller>;

const createTeam: Route = {
  namespace: 'tern/v2',
  path: '/api/create-team',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Creates a child team of the account acted on (an owner or admin of the account)',
      args: Type.Object({ name: Type.String({ description: 'The name of the team.', minLength: TEAM_NAME_LENGTH.min, maxLength: TEAM_NAME_LENGTH.max }) }),
      async handle({ ctx, user, params, log }) {
        // The team acted on must be the account itself: a child team (X-Account-Id of one) creates none, as in /v2.
        const team = valueOf(await ctx.core.teams.create(signedIn(user).acting, params.name, log));
        return { status: 201, body: teamItem(team) };
      },
    }),
  ],
};

export const teamRoutes: readonly Route[] = [createTeam];
