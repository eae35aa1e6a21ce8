// What the operator's pages share: a tenant's link, a rate as people read it.
import type { Team } from '../../../shared/domain/team.js';
import { html, type Html } from '../html.js';

/** A tenant as the admin lists name it: its name, linked to its page. */
export const tenantLink = (t: Pick<Team, 'id' | 'name'>): Html => html`<a href="/admin/tenants/${t.id}">${t.name}</a>`;

/** A tenant known by its id, named from `names` (core.tenants.names); one since deleted says so. */
export const namedTenant = (id: number, names: ReadonlyMap<number, string>): Html => {
  const name = names.get(id);
  return name === undefined ? html`<span class="muted">a deleted tenant (${id})</span>` : tenantLink({ id, name });
};

/** A rate (0..1) as a percentage. */
export const percent = (rate: number): string => `${(rate * 100).toFixed(2)} %`;
