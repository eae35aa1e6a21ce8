// An account's child teams: created by the account only, renamed, suspended and reactivated by their
// owner (a platform suspension stands: only the platform lifts it). Credits stay pooled at the account.
// And a team's account settings: name, default region, time zone and icon.
import { isOneLine, notOneLine } from '../domain/one-line.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { Team, TeamIcon } from '../domain/team.js';
import type { TeamStatus } from '../domain/team-state.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export interface TeamDeps {
  config: Config;
  store: Store;
}

/** The team owning a key, the pooled balance, and the child teams when the owner is an account. */
export interface TeamOverview {
  owner: Team;
  /** The pooled balance, shared by every team. */
  balance: number;
  teams: Team[];
}

/** A change of the account settings; a field left out stays as it is. */
export interface AccountSettingsChange {
  name?: string;
  defaultRegion?: string;
  /** An IANA time zone name. */
  timeZone?: string;
  /** An https image elsewhere, an icon uploaded by the team, or null for none. */
  icon?: TeamIcon | null;
}

export class Teams {
  constructor(private readonly d: TeamDeps) {}

  /** The team owning the key and, for an account, its child teams. */
  async overview(owner: Team): Promise<TeamOverview> {
    return { owner, balance: await this.d.store.teams.payerBalance(owner), teams: await this.children(owner) };
  }

  /** An account's child teams; a child team has none. */
  async children(owner: Team): Promise<Team[]> {
    return owner.parentId === null ? this.d.store.teams.children(owner.id) : [];
  }

  async create(owner: Team, rawName: string, log: Logger): Promise<Managed<Team>> {
    if (owner.parentId !== null) return refuse({ kind: 'not_parent_account' });
    const name = teamName(rawName);
    if (!name.ok) return name;
    const limit = this.d.config.limits.teamsPerAccount;
    const team = await this.d.store.teams.createTeam(owner, name.value, limit);
    if (team === 'limit_reached') return refuse({ kind: 'limit_reached', what: 'teams', limit, field: 'name' });
    log.info({ team: team.id, parent: owner.id }, 'team created');
    return done(team);
  }

  /** Renames a team of the account, and moves its status (as its owner). */
  async update(owner: Team, id: number, change: { name?: string; status?: TeamStatus }, log: Logger): Promise<Managed<Team>> {
    const team = await this.d.store.teams.get(id);
    if (!team || owner.parentId !== null || team.parentId !== owner.id) return notFound('team', 'Team not found');
    const name = change.name === undefined ? undefined : teamName(change.name);
    if (name && !name.ok) return name;
    if (change.status) {
      const moved = await this.d.store.teams.changeStatus(team.id, change.status, 'account');
      if (!moved.ok && moved.refusal === 'suspended_by_platform') return refuse({ kind: 'suspended_by_platform', teamId: team.id });
      if (!moved.ok) return notFound('team', 'Team not found');
    }
    if (name) await this.d.store.teams.rename(team.id, name.value);
    const updated = (await this.d.store.teams.get(team.id))!;
    log.info({ team: team.id, status: updated.status, by: 'account' }, 'team updated');
    return done(updated);
  }

  /**
   * Changes the account settings of the team acted on: every field is checked before anything changes, so a
   * refused change changes nothing. The region is one of config `regions`; the time zone a real IANA zone.
   */
  async updateSettings(team: Team, change: AccountSettingsChange, log: Logger): Promise<Managed<Team>> {
    const checked = this.checkSettings(change);
    if (!checked.ok) return checked;
    const updated = await this.d.store.teams.updateSettings(team.id, {
      name: checked.value,
      backendRegion: change.defaultRegion,
      timeZone: change.timeZone,
      icon: change.icon,
    });
    if (updated === 'no_such_icon') return refuse({ kind: 'invalid_field', field: 'icon_url', message: 'icon_url names no icon uploaded by this account' });
    if (!updated) return notFound('team', 'Team not found');
    log.info({ team: team.id, fields: Object.keys(change) }, 'account settings changed');
    return done(updated);
  }

  /** The settings' own rules; the trimmed name when one is given. */
  private checkSettings(change: AccountSettingsChange): Managed<string | undefined> {
    const name = change.name === undefined ? done(undefined) : teamName(change.name);
    if (!name.ok) return name;
    const regions = this.d.config.regions;
    if (change.defaultRegion !== undefined && !regions.includes(change.defaultRegion)) {
      return refuse({ kind: 'invalid_field', field: 'default_region', message: `default_region must be one of ${regions.join(', ')}` });
    }
    if (change.timeZone !== undefined && !isIanaTimeZone(change.timeZone)) {
      return refuse({ kind: 'invalid_field', field: 'time_zone', message: 'time_zone must be an IANA time zone name, such as Europe/Paris' });
    }
    if (change.icon?.kind === 'url' && !isHttpsUrl(change.icon.url)) {
      return refuse({ kind: 'invalid_field', field: 'icon_url', message: 'icon_url must be an https URL, or null' });
    }
    return name;
  }
}

/**
 * A time zone the runtime's IANA database knows (aliases such as US/Eastern included), spelled as IANA spells
 * it: the runtime accepts names in any case ('europe/paris'), which would be stored as sent, so a name that
 * differs from its canonical spelling only by case is refused. UTC offsets ('+01:00') are no IANA names.
 */
export function isIanaTimeZone(name: string): boolean {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  if (/^[+-]/.test(canonical)) return false;
  return canonical.toLowerCase() !== name.toLowerCase() || canonical === name;
}

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** How long a team's name may be: the rule of every interface (/v2 and the dashboard's schemas, the team page). */
export const TEAM_NAME_LENGTH = { min: 2, max: 100 } as const;

/**
 * One line of text (checked as sent: a trailing newline is refused, not trimmed away); surrounding spaces are
 * not part of a name; what is left must still have 2 to 100 characters.
 */
function teamName(raw: string): Managed<string> {
  if (!isOneLine(raw)) return refuse({ kind: 'invalid_field', field: 'name', message: notOneLine('name') });
  const name = raw.trim();
  const { min, max } = TEAM_NAME_LENGTH;
  // The core holds the limit, not only the REST schemas: the team page posts here without them.
  if (name.length < min || name.length > max) return refuse({ kind: 'invalid_field', field: 'name', message: `name must have ${min} to ${max} characters` });
  return done(name);
}
