// Both kinds of keys as one collection (the dashboard's /api-keys): the team's sending keys, oldest first, then
// the admin keys seen from it (admin-keys.ts), paged across the two; or one kind alone.
import type { KeyKind } from '../api-key.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { Team } from '../domain/team.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { SendingKeys } from './sending-keys.js';
import type { AdminKeys } from './admin-keys.js';

export class KeyListing {
  constructor(private readonly d: { sendingKeys: SendingKeys; adminKeys: AdminKeys }) {}

  /** One page of the team's keys of `kind`, or of both kinds when none is given. */
  async list(team: Team, kind: KeyKind | undefined, page: PageRequest): Promise<PageOf<KeyRecord>> {
    const offset = (page.page - 1) * page.perPage;
    if (kind === 'admin') {
      const admins = await this.d.adminKeys.list(team);
      return { rows: admins.slice(offset, offset + page.perPage), total: admins.length };
    }
    const sending = await this.d.sendingKeys.list(team, page);
    if (kind === 'sending') return sending;
    // Admin keys are few (a limit per account): the page's room after the sending keys is filled from them in memory.
    const admins = await this.d.adminKeys.list(team);
    const from = Math.max(0, offset - sending.total);
    const room = page.perPage - sending.rows.length;
    return { rows: [...sending.rows, ...admins.slice(from, from + room)], total: sending.total + admins.length };
  }
}
