// A stored API key: its hash and visible ends, never its value (shown once, when it is created).
import type { KeyKind } from '../shared/api-key.js';
import type { Scope } from '../shared/scopes.js';

export const KEY_STATUSES = ['active', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export interface KeyRecord {
  id: number;
  teamId: number;
  kind: KeyKind;
  title: string;
  keyHash: string;
  keyStart: string;
  keyEnd: string;
  /** An admin key's scopes; a sending key has none. */
  scopes: Scope[];
  /** A sending key limited to one domain. */
  domainId: string | null;
  domainName: string | null;
  status: KeyStatus;
  createdAt: string;
}
