// What the operator's pages share: a team's link, a rate as people read it.
import type { Team } from '../../../shared/domain/team.js';
import { html, type Html } from '../html.js';

/** A team as the admin lists name it: its name, linked to its page. */
export const teamLink = (t: Pick<Team, 'id' | 'name'>): Html => html`<a href="/admin/tenants/${t.id}">${t.name}</a>`;

/** A team known by its id, named from `names` (core.adminTeams.names); one since deleted says so. */
export const namedTeam = (id: number, names: ReadonlyMap<number, string>): Html => {
  const name = names.get(id);
  return name === undefined ? html`<span class="muted">a deleted tenant (${id})</span>` : teamLink({ id, name });
};

/** A rate (0..1) as a percentage. */
export const percent = (rate: number): string => `${(rate * 100).toFixed(2)} %`;
