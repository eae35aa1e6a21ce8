// The platform figures' rows as both engines read them (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import { MESSAGE_STATUSES } from '../domain/queue-state.js';
import type { DayCount, TeamCounts } from './platform-statistics.js';

export const decodeDay = rowDecoder('platform day count', Type.Object({ day: Text, status: OneOf(MESSAGE_STATUSES), n: Int }), (r): DayCount => r);

export const decodeTeamCounts = rowDecoder('team counts', Type.Object({ accounts: Int, teams: Int, suspended_accounts: Int, suspended_teams: Int }), (r): TeamCounts => ({
  accounts: r.accounts,
  teams: r.teams,
  suspendedAccounts: r.suspended_accounts,
  suspendedTeams: r.suspended_teams,
}));

export const decodeDepth = rowDecoder('queue depth', Type.Object({ n: Int }), (r) => r.n);
