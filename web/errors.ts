// The web pages' errors: one table of the codes a page answers with and their status, the error a page throws
// (PageError), and how an identity refusal of the core reads on a page (worded as the dashboard words it, so
// the two interfaces say the same thing for the same refusal).
import type { IdentityRefusal } from '../core/identity/index.js';
import { dashboardErrorForIdentity } from '../http/dashboard/identity-errors.js';

/** Every code a page answers with, and its HTTP status. */
export const WEB_ERRORS = {
  /** A field of the page's request is missing or invalid (app_id, success_url, redirect_to, …). */
  invalid_request: 400,
  /** The credentials given to sign in are wrong (one answer for an unknown email and a wrong password). */
  invalid_credentials: 401,
  /** A form posted without a live session behind it. */
  not_signed_in: 403,
  /** A form posted without its CSRF token, or with a wrong or stale one. */
  invalid_csrf_token: 403,
  /** A form posted from another site (its Origin is not this site). */
  cross_site_form: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** Too many failed sign-ins: Retry-After says when to try again. */
  too_many_requests: 429,
  /** The core refused what was asked (its status is the dashboard's for the same refusal). */
  refused: 400,
  internal_error: 500,
  unavailable: 503,
} as const;

export type WebErrorCode = keyof typeof WEB_ERRORS;

/** A page's refusal: the status of its code unless one is given, headers to add (Retry-After). */
export class PageError extends Error {
  readonly status: number;
  constructor(
    readonly code: WebErrorCode,
    message: string,
    status?: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = status ?? WEB_ERRORS[code];
  }
}

export const pageError = (code: WebErrorCode, message: string): PageError => new PageError(code, message);

/** An identity refusal as a page says it: the dashboard's status for it, and its message (a field's own, which the REST answer keeps in data.details). */
export function pageErrorForIdentity(refusal: IdentityRefusal): PageError {
  const e = dashboardErrorForIdentity(refusal);
  return new PageError('refused', refusal.kind === 'invalid_field' ? refusal.message : e.message, e.status, e.headers);
}
