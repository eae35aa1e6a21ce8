// The teams repository: accounts (the teams that pay) and their child teams. Limits are kept by the store, atomically.
import type { StoredIcon, SuspensionCause, Team, TeamIcon } from '../domain/team.js';
import type { Actor, TeamStatus } from '../domain/team-state.js';

export interface NewAccount {
  name: string;
  credits: number;
  limitPerSecond: number;
  planType: string;
  backendRegion: string;
}

/** The account settings a team's owner changes; a field left out stays as it is. */
export interface TeamSettings {
  name?: string;
  backendRegion?: string;
  timeZone?: string;
  /** Null removes the icon. */
  icon?: TeamIcon | null;
}

/** An uploaded icon to keep: its id is derived from the team and the content by the caller. */
export type NewIcon = Omit<StoredIcon, 'createdAt'>;

export type StatusChange = { ok: true; team: Team } | { ok: false; refusal: 'suspended_by_platform' | 'not_found' };

export interface TeamRepository {
  /** Live accounts and teams. */
  count(): Promise<number>;
  createAccount(a: NewAccount): Promise<Team>;
  /** Creates a child team with the parent's plan, rate and region, unless the parent already has `limit` live teams. */
  createTeam(parent: Team, name: string, limit: number): Promise<Team | 'limit_reached'>;
  get(id: number): Promise<Team | undefined>;
  /** The live child teams of an account, oldest first. */
  children(parentId: number): Promise<Team[]>;
  /** The balance that pays for the team's mail: its account's, or its own once it was given credits (payerIdOf). */
  payerBalance(team: Team): Promise<number>;
  rename(id: number, name: string): Promise<Team | undefined>;
  /** Moves a team's status by the one transition rule; a suspension records its cause (or who) and time, reactivation clears it. */
  changeStatus(id: number, wanted: TeamStatus, actor: Actor, cause?: SuspensionCause): Promise<StatusChange>;
  update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Team | undefined>;
  /**
   * Changes a team's account settings in one transaction. An uploaded icon the team no longer shows is deleted
   * (a team keeps at most the one it shows); an uploaded icon named must be one of the team's, else 'no_such_icon'.
   */
  updateSettings(id: number, settings: TeamSettings): Promise<Team | 'no_such_icon' | undefined>;
  /** Keeps an uploaded icon and makes it the team's icon, in one transaction; the team's previous uploaded icon is deleted. */
  saveIcon(icon: NewIcon): Promise<Team | undefined>;
  /** An uploaded icon by its id (any team's: icons are public). */
  icon(id: string): Promise<StoredIcon | undefined>;
}
