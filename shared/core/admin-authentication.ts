// Who calls the management interface: an admin key (sending keys never manage), and the team it acts on,
// its own or, for an account's key, one of the account's child teams. One of the authentication strategies
// the interfaces pick per route group (sending keys are core/sending; dashboard sessions come next).
import type { KeyCache } from '../runtime/key-cache.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { Store } from '../store/index.js';
import { accountIdOf, type Team } from '../domain/team.js';
import { kindOf } from '../api-key.js';

export interface AdminCaller {
  key: KeyRecord;
  /** The team owning the key. */
  owner: Team;
  /** The team the request acts on. */
  acting: Team;
  /** The account owning the key (the owner or its parent): rate limits, credits and limits are counted here. */
  accountId: number;
}

export type AdminRefusal =
  | { kind: 'missing_key' }
  | { kind: 'admin_key_in_body' }
  /** A sending key presented where only admin keys work. */
  | { kind: 'sending_key' }
  | { kind: 'invalid_key' }
  | { kind: 'team_out_of_reach' };

export interface AdminCredential {
  /** The Authorization header's Bearer token: undefined without a header, '' for one that is not Bearer. */
  bearer: string | undefined;
  /** An api_key field of the body, which admin endpoints never accept. */
  inBody: string | undefined;
  /** The team to act on (X-Account-Id); undefined for the key's own. */
  actingTeamId?: number;
}

export type AdminAuthentication = { ok: true; caller: AdminCaller } | { ok: false; refusal: AdminRefusal };

const refused = (kind: AdminRefusal['kind']): AdminAuthentication => ({ ok: false, refusal: { kind } });

export class AdminAuthenticator {
  constructor(private readonly d: { store: Store; keyCache: KeyCache }) {}

  async authenticate(c: AdminCredential): Promise<AdminAuthentication> {
    // An admin key in a body is refused even beside a valid header: it must not become an accepted habit.
    if (c.inBody !== undefined && kindOf(c.inBody) === 'admin') return refused('admin_key_in_body');
    if (c.bearer === undefined) return refused(c.inBody !== undefined ? 'sending_key' : 'missing_key');
    if (kindOf(c.bearer) === 'sending') return refused('sending_key');
    const key = await this.d.keyCache.resolve(c.bearer);
    if (!key || key.kind !== 'admin') return refused('invalid_key');
    const owner = await this.d.store.teams.get(key.teamId);
    if (!owner) return refused('invalid_key');
    const acting = await this.actingTeam(owner, c.actingTeamId);
    if (!acting) return refused('team_out_of_reach');
    return { ok: true, caller: { key, owner, acting, accountId: accountIdOf(owner) } };
  }

  private async actingTeam(owner: Team, id: number | undefined): Promise<Team | undefined> {
    if (id === undefined || id === owner.id) return owner;
    const team = await this.d.store.teams.get(id);
    // A team outside the key's reach answers exactly like one that does not exist.
    return team && owner.parentId === null && team.parentId === owner.id ? team : undefined;
  }
}
