// Why a management use case (domains, keys, teams, webhooks, suppressions) refused: one closed set that
// /v2 (http/admin/refusal-errors.ts) and, later, the dashboard each translate into their own error shape.
export type ManagedThing =
  | 'domain'
  | 'team'
  | 'sending_key'
  | 'admin_key'
  | 'webhook'
  | 'suppression'
  | 'message'
  | 'invoice'
  | 'payment'
  | 'support_ticket'
  | 'support_response'
  | 'support_attachment'
  | 'sso_site';

export type ManagementRefusal =
  /** Missing, or outside the caller's reach: the two answer alike, so nothing reveals what exists. */
  | { kind: 'not_found'; what: ManagedThing; message: string; field?: string }
  | { kind: 'invalid_domain'; message: string }
  | { kind: 'invalid_url'; message: string }
  /** `fields`: every field refused, this one first, when a change breaks more than one (a form says them all at once). */
  | { kind: 'invalid_field'; field: string; message: string; fields?: readonly FieldProblem[] }
  | { kind: 'domain_exists'; name: string }
  /** Sending from a subdomain needs credits on the account. */
  | { kind: 'credits_required' }
  /** A transfer or a removal of credits would take a balance below zero. */
  | { kind: 'insufficient_credits'; balance: number; field: string }
  | { kind: 'limit_reached'; what: 'teams' | 'webhooks' | 'admin_keys'; limit: number; field?: string }
  /** Only an account (a team without a parent) may do this (create teams). */
  | { kind: 'not_parent_account' }
  /** The caller's role, or the team acted on, does not allow this (admin keys: the owner, on the main account). */
  | { kind: 'forbidden'; message: string }
  /** The platform suspended the team; its owner cannot lift it. */
  | { kind: 'suspended_by_platform'; teamId: number }
  | { kind: 'daily_limit_reached'; limit: number; retryAfterS: number }
  /** Too many requests of one kind for one thing (DNS checks of a domain on demand): wait `retryAfterS`. */
  | { kind: 'rate_limited'; message: string; retryAfterS: number }
  /** The platform takes no card payments (billing.provider is offline). */
  | { kind: 'payments_offline' }
  /** A charge or the saving of a card was declined; the provider's reason. */
  | { kind: 'payment_failed'; reason: string }
  /** A charge needs a saved card first. */
  | { kind: 'no_saved_card' }
  /** The addresses chosen are on their team's suppression list: never sent again (a requeue). */
  | { kind: 'suppressed_addresses'; emails: string[] }
  /** Tern cannot send mail itself now: no system sender is configured, or its domain is not a verified one. */
  | { kind: 'system_mail_unavailable'; reason: string }
  /** A support ticket is closed (it takes no response and cannot be closed again) or, for a re-open, not closed. */
  | { kind: 'ticket_state'; closed: boolean; message: string };

/** One field a change breaks, and why (worded with the field's name, as the REST routes answer it). */
export interface FieldProblem {
  field: string;
  message: string;
}

export type Managed<T> = { ok: true; value: T } | { ok: false; refusal: ManagementRefusal };

export const done = <T>(value: T): Managed<T> => ({ ok: true, value });
export const refuse = <T = never>(refusal: ManagementRefusal): Managed<T> => ({ ok: false, refusal });
/** Every field a change breaks at once: the first is the refusal /v2 and REST answer with, `fields` has them all. */
export const invalidFields = <T = never>(problems: readonly [FieldProblem, ...FieldProblem[]]): Managed<T> =>
  refuse({ kind: 'invalid_field', ...problems[0], fields: problems });
export const notFound = <T = never>(what: ManagedThing, message: string, field?: string): Managed<T> =>
  refuse(field === undefined ? { kind: 'not_found', what, message } : { kind: 'not_found', what, message, field });
