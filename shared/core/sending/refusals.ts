// Why a send is refused: one closed set shared by every interface. SMTP (smtp/refusal-replies.ts) and HTTP
// (http/send/refusal-errors.ts) each translate a refusal into their own reply; neither decides one.
import type { Scope } from '../../scopes.js';

export type SenderRefusal =
  /** No key was presented at all. */
  | { kind: 'no_key' }
  /** The key is unknown, revoked, of the wrong kind for this way in, or its team is gone. */
  | { kind: 'invalid_key'; detail: string }
  /** An admin key was sent in a request body; admin keys travel in the Authorization header only. */
  | { kind: 'admin_key_in_body' }
  /** A valid admin key that lacks the scope sending needs. */
  | { kind: 'insufficient_scope'; requiredScope: Scope }
  /** The team named to act on is not one the key reaches (or does not exist: the two answer alike). */
  | { kind: 'team_out_of_reach' }
  /** The team, the account above it, or the team owning the key is suspended. */
  | { kind: 'team_suspended' }
  /** The address's domain is not a verified domain of the sending team. */
  | { kind: 'domain_not_verified'; address: string; domain: string }
  /** The key is limited to another of the team's domains. */
  | { kind: 'domain_not_allowed'; address: string; domain: string }
  /** The account's sending rate (messages per second) is used up for now. */
  | { kind: 'rate_limited'; limitPerSecond: number; retryAfterS: number }
  /** The pooled credits do not cover the recipients that would be sent. */
  | { kind: 'insufficient_balance' };

export type RefusalKind = SenderRefusal['kind'];

/** Every refusal kind, for the translation tables' exhaustiveness tests. */
export const REFUSAL_KINDS: readonly RefusalKind[] = [
  'no_key',
  'invalid_key',
  'admin_key_in_body',
  'insufficient_scope',
  'team_out_of_reach',
  'team_suspended',
  'domain_not_verified',
  'domain_not_allowed',
  'rate_limited',
  'insufficient_balance',
];

/** A use case's answer: its value, or the refusal that stopped it. */
export type Decision<T> = { ok: true; value: T } | { ok: false; refusal: SenderRefusal };

export const allowed = <T>(value: T): Decision<T> => ({ ok: true, value });
export const refused = <T = never>(refusal: SenderRefusal): Decision<T> => ({ ok: false, refusal });
