// /v2/teams: the account's child teams. Only the parent account creates them; credits stay pooled.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { DataOf, IdParams } from '../schemas/common.js';
import type { Team } from '../../../shared/domain/team.js';
import { valueOf } from './refusal-errors.js';
import { TEAM_NAME_LENGTH } from '../../../shared/core/teams.js';

const TeamStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
const TeamItem = Type.Object({ id: Type.Integer(), name: Type.String(), status: TeamStatus });
const TeamName = Type.String({ minLength: TEAM_NAME_LENGTH.min, maxLength: TEAM_NAME_LENGTH.max });

/** A team as /v2 shows it (shared with the dashboard's /api/create-team). */
export const teamItem = (t: Team) => ({ id: t.id, name: t.name, status: t.status });

/** The account as /v2/teams shows it: the team and the pooled balance (shared with the dashboard's /api/account). */
export const accountItem = (t: Team, balance: number) => ({ ...teamItem(t), credit_balance: balance });

const list = defineRoute({
  method: 'GET',
  path: '/v2/teams',
  summary: 'The account owning the key and its teams (X-Account-Id is ignored)',
  tag: 'Teams',
  scopes: ['teams:read'],
  rate: 'writes',
  ignoresTeamHeader: true,
  responses: {
    200: {
      description: 'Account and teams',
      schema: DataOf(
        Type.Object({
          account: Type.Object({ id: Type.Integer(), name: Type.String(), status: TeamStatus, credit_balance: Type.Integer() }),
          teams: Type.Array(TeamItem),
          credits_shared: Type.Boolean(),
        }),
      ),
    },
  },
  async handle({ ctx, caller }) {
    const owner = caller.owner;
    const { teams, balance } = await ctx.core.teams.overview(owner);
    const account = accountItem(owner, balance);
    return {
      body: { data: { account, teams: teams.map(teamItem), credits_shared: teams.every((t) => t.creditsShared) } },
      headers: { 'X-Account-Id': String(owner.id) },
    };
  },
});

const create = defineRoute({
  method: 'POST',
  path: '/v2/teams',
  summary: 'Create a child team (parent account only, without X-Account-Id)',
  tag: 'Teams',
  scopes: ['teams:write'],
  rate: 'writes',
  forbidsTeamHeader: true,
  body: Type.Object({ name: TeamName }, { additionalProperties: false }),
  responses: {
    201: { description: 'Team created', schema: DataOf(TeamItem) },
    403: { description: 'The key belongs to a child team' },
    422: { description: 'Invalid name, or the account has its maximum number of teams' },
  },
  async handle({ ctx, caller, body, log }) {
    const team = valueOf(await ctx.core.teams.create(caller.owner, body.name, log));
    return { status: 201, body: { data: teamItem(team) } };
  },
});

const update = defineRoute({
  method: 'PUT',
  path: '/v2/teams/{id}',
  summary: 'Rename a team, or suspend or reactivate it',
  tag: 'Teams',
  scopes: ['teams:write'],
  rate: 'writes',
  params: IdParams,
  body: Type.Object({ name: Type.Optional(TeamName), status: Type.Optional(TeamStatus) }, { additionalProperties: false, minProperties: 1 }),
  responses: {
    200: { description: 'Team updated', schema: DataOf(TeamItem) },
    403: { description: 'errors.code suspended_by_platform: the platform suspended this team' },
    404: { description: 'No such team under this account' },
  },
  async handle({ ctx, caller, params, body, log }) {
    const updated = valueOf(await ctx.core.teams.update(caller.owner, params.id, body, log));
    return { body: { data: teamItem(updated) }, headers: { 'X-Account-Id': String(updated.id) } };
  },
});

export const teamRoutes: AnyRoute[] = [list, create, update];
