// A stored API key: its hash and visible ends, never its value (shown once, when it is created).
import type { KeyKind } from '../api-key.js';
import type { Scope } from '../scopes.js';

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

/** A key's name (its title): 1 to 100 characters once trimmed; the rule of every interface that names a key. */
export const KEY_NAME_MAX = 100;

/** The trimmed name, or why it is refused (blank, or longer than KEY_NAME_MAX). */
export function keyNameProblem(raw: string): { name: string } | { problem: string } {
  const name = raw.trim();
  if (!name) return { problem: 'name must not be blank' };
  if (name.length > KEY_NAME_MAX) return { problem: `name must have at most ${KEY_NAME_MAX} characters` };
  return { name };
}
