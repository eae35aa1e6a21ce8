// The keys repository: sending and admin keys, stored as hashes only.
import type { KeyKind } from '../api-key.js';
import type { Scope } from '../scopes.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { PageOf, PageRequest } from './paging.js';

export interface NewKey {
  teamId: number;
  title: string;
  hash: string;
  start: string;
  end: string;
}

export interface KeyRepository {
  createSending(k: NewKey & { domainId: string | null }): Promise<KeyRecord>;
  /** Creates an admin key unless the account (with all its teams) already holds `limit` active ones. */
  createAdmin(k: NewKey & { accountId: number; scopes: Scope[] }, limit: number): Promise<KeyRecord | 'limit_reached'>;
  get(id: number): Promise<KeyRecord | undefined>;
  /** A key of any status by its hash. */
  findByHash(hash: string): Promise<KeyRecord | undefined>;
  /** A team's active sending keys, oldest first. */
  listSending(teamId: number, page: PageRequest): Promise<PageOf<KeyRecord>>;
  /** The active admin keys of an account and of all its teams, oldest first. */
  listAdmin(accountId: number): Promise<KeyRecord[]>;
  /** Revokes an active key of the given kind (on the given team when one is given); its hash, for cache invalidation. */
  revoke(id: number, kind: KeyKind, teamId?: number): Promise<string | undefined>;
  /** Revokes every active sending key limited to a domain that is being removed; their hashes. */
  revokeForDomain(domainId: string): Promise<string[]>;
}
