// A team's sending keys: created (the value shown once, only its hash kept), listed masked, revoked (every
// process drops it at once through the key cache).
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import type { KeyCache } from '../runtime/key-cache.js';
import { keyNameProblem, type KeyRecord } from '../domain/key-record.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import { generateKey, hashKey, keyEnds } from '../api-key.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export interface SendingKeyDeps {
  store: Store;
  redis: Redis;
  keyCache: KeyCache;
}

export interface CreatedKey {
  key: KeyRecord;
  /** The key itself: shown once, never stored. */
  value: string;
}

export class SendingKeys {
  constructor(private readonly d: SendingKeyDeps) {}

  list(team: Team, page: PageRequest): Promise<PageOf<KeyRecord>> {
    return this.d.store.keys.listSending(team.id, page);
  }

  /** A new key for the team, limited to one of its domains when `domainId` is given. */
  async create(team: Team, o: { name: string; domainId?: string }, log: Logger): Promise<Managed<CreatedKey>> {
    let domainId: string | null = null;
    if (o.domainId !== undefined) {
      const domain = await this.d.store.domains.get(o.domainId, team.id);
      if (!domain) return notFound('domain', 'Domain not found', 'domain');
      domainId = domain.id;
    }
    const named = keyNameProblem(o.name);
    if ('problem' in named) return refuse({ kind: 'invalid_field', field: 'name', message: named.problem });
    const name = named.name;
    const value = generateKey('sending');
    const { start, end } = keyEnds(value);
    const key = await this.d.store.keys.createSending({ teamId: team.id, title: name, hash: hashKey(value), start, end, domainId });
    log.info({ key: key.id, team: team.id }, 'sending key created');
    return done({ key, value });
  }

  async revoke(team: Team, id: number, log: Logger): Promise<Managed<void>> {
    const hash = await this.d.store.keys.revoke(id, 'sending', team.id);
    if (!hash) return notFound('sending_key', 'Sending key not found');
    await this.d.keyCache.revoked(this.d.redis, [hash], log);
    log.info({ key: id, team: team.id }, 'sending key revoked');
    return done(undefined);
  }
}
