// A team as the application sees it: an account (parent null, holds the pooled credits) or one of its child teams.
import type { SuspendedBy, TeamStatus } from './team-state.js';

export interface Team {
  id: number;
  parentId: number | null;
  name: string;
  status: TeamStatus;
  suspendedBy: SuspendedBy | null;
  planType: string;
  creditBalance: number;
  limitPerSecond: number;
  backendRegion: string;
  createdAt: string;
  updatedAt: string;
}

/** The paying account of a team: itself when it is an account. */
export const rootIdOf = (team: Team): number => team.parentId ?? team.id;
