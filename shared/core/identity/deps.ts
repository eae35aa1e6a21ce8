// What the identity use cases share: the store, Redis, the configuration and one clock (tests move it). The
// logger is the caller's, passed to each use case that changes something.
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import { accountIdOf } from '../../domain/team.js';
import { isOperator, type User } from '../../domain/user.js';

/** What the use cases that need no Redis take (users, sessions, login security): the CLI builds them alone. */
export interface StoreDeps {
  store: Store;
  config: Config;
  /** Epoch milliseconds. */
  now: () => number;
}

export interface IdentityDeps extends StoreDeps {
  redis: Redis;
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();

/** The account a user belongs to or reaches through its team; undefined for an operator, or when its team is gone. */
export async function accountOfUser(d: StoreDeps, user: User | undefined): Promise<number | undefined> {
  // An unknown user or an operator looks up a team too (id 0 never exists), so a login does the same work either way.
  const teamId = user === undefined || isOperator(user) ? 0 : user.teamId;
  const team = await d.store.teams.get(teamId);
  return team ? accountIdOf(team) : undefined;
}

/** Text from a request header kept in a record: at most `max` characters (a user agent can be any length). */
export const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);
