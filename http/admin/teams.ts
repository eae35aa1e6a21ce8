// /v2/teams: the account's child teams. Only the parent account creates them; credits stay pooled.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route.js';
import { DataOf, IdParams } from '../schemas/common.js';
import { adminError } from '../../shared/errors.js';
import type { Team } from '../../domain/team.js';

const TeamStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
const TeamItem = Type.Object({ id: Type.Integer(), name: Type.String(), status: TeamStatus });
const TeamName = Type.String({ minLength: 2, maxLength: 100 });

const teamItem = (t: Team) => ({ id: t.id, name: t.name, status: t.status });

/** The name as stored: trimmed, and still 2 to 100 characters once trimmed (on create and on rename). */
function teamName(raw: string): string {
  const name = raw.trim();
  if (name.length < 2) throw adminError('validation_failed', 'name must have 2 to 100 characters', { field: 'name' });
  return name;
}

const list = defineRoute({
  method: 'GET',
  path: '/v2/teams',
  summary: 'The account owning the key and its teams (X-Account-Id is ignored)',
  tag: 'Teams',
  scopes: ['teams:read'],
  rate: 'writes',
  ignoresAccountId: true,
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
    const teams = owner.parentId === null ? await ctx.store.accounts.children(owner.id) : [];
    const account = { ...teamItem(owner), credit_balance: await ctx.store.accounts.pooledBalance(owner) };
    return { body: { data: { account, teams: teams.map(teamItem), credits_shared: true } }, headers: { 'X-Account-Id': String(owner.id) } };
  },
});

const create = defineRoute({
  method: 'POST',
  path: '/v2/teams',
  summary: 'Create a child team (parent account only, without X-Account-Id)',
  tag: 'Teams',
  scopes: ['teams:write'],
  rate: 'writes',
  forbidsAccountId: true,
  body: Type.Object({ name: TeamName }, { additionalProperties: false }),
  responses: {
    201: { description: 'Team created', schema: DataOf(TeamItem) },
    403: { description: 'The key belongs to a child team' },
    422: { description: 'Invalid name, or the account has its maximum number of teams' },
  },
  async handle({ ctx, caller, body }) {
    if (caller.owner.parentId !== null) throw adminError('forbidden', 'Only the parent account can create teams');
    const name = teamName(body.name);
    const team = await ctx.store.accounts.createTeam(caller.owner, name, ctx.config.limits.teamsPerAccount);
    if (team === 'limit_reached') {
      throw adminError('limit_reached', `An account can have at most ${ctx.config.limits.teamsPerAccount} teams`, { field: 'name' });
    }
    ctx.log.info({ team: team.id, parent: caller.owner.id }, 'team created');
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
  async handle({ ctx, caller, params, body }) {
    const team = await ctx.store.accounts.get(params.id);
    if (!team || caller.owner.parentId !== null || team.parentId !== caller.owner.id) throw adminError('not_found', 'Team not found');
    const name = body.name === undefined ? undefined : teamName(body.name);
    if (body.status) {
      const change = await ctx.store.accounts.changeStatus(team.id, body.status, 'account');
      if (!change.ok && change.refusal === 'suspended_by_platform') {
        throw adminError('suspended_by_platform', 'The platform suspended this team; only the platform can reactivate it', {}, {
          'X-Account-Id': String(team.id),
        });
      }
      if (!change.ok) throw adminError('not_found', 'Team not found');
    }
    if (name !== undefined) await ctx.store.accounts.rename(team.id, name);
    const updated = (await ctx.store.accounts.get(team.id))!;
    ctx.log.info({ team: team.id, status: updated.status, by: 'account' }, 'team updated');
    return { body: { data: teamItem(updated) }, headers: { 'X-Account-Id': String(team.id) } };
  },
});

export const teamRoutes: AnyRoute[] = [list, create, update];
