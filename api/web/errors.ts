// The web pages' errors: one table of the codes a page answers with and their status, the error a page throws
// (PageError), and how a refusal of the core (identity or management) reads on a page: worded as the dashboard
// words it, so the two interfaces say the same thing for the same refusal.
import type { IdentityRefusal } from '../../shared/core/identity/index.js';
import type { FieldProblem, ManagementRefusal } from '../../shared/core/management-refusals.js';
import { dashboardErrorForIdentity } from '../pipeline/identity-errors.js';
import { dashboardErrorFor } from '../pipeline/refusal-errors.js';

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
  /** The user's role does not allow what was asked (a viewer's forged write). */
  forbidden: 403,
  /** No such page, or a thing of another account (answered as missing, never as forbidden). */
  not_found: 404,
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

/** A field's own words for an invalid field; the dashboard's message otherwise. */
function managementMessage(refusal: ManagementRefusal, fallback: string): string {
  if (refusal.kind === 'invalid_field' || refusal.kind === 'invalid_domain' || refusal.kind === 'invalid_url' || refusal.kind === 'not_found') return refusal.message;
  return fallback;
}

/** A management refusal as a page says it: the dashboard's status (404 for another account's thing), its message. */
export function pageErrorFor(refusal: ManagementRefusal): PageError {
  const e = dashboardErrorFor(refusal);
  const code: WebErrorCode = e.status === 404 ? 'not_found' : e.status === 403 ? 'forbidden' : 'refused';
  return new PageError(code, managementMessage(refusal, e.message), e.status, e.headers);
}

/** The value of a core result, or the refusal thrown as a page error (the pages' route group shows it). */
export function valueOrPageError<T>(result: { ok: true; value: T } | { ok: false; refusal: ManagementRefusal }): T {
  if (!result.ok) throw pageErrorFor(result.refusal);
  return result.value;
}

/**
 * A form's fields as the form labels them: the name a core refusal gives a field (`failuresPerEmail`, `url`)
 * and the label the person sees. Each form keeps its own table (data, next to the form), so a refusal is said in
 * the form's words and never with a field's internal name.
 */
export type FieldLabels = Readonly<Record<string, string>>;

const escapedForRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A field's problem in the form's words: each mention of a field's name is its label, the first letter upper
 * case. A label that is only the name capitalised (email, Email) names the field once: later the word is plain
 * English ("Email must be an email address").
 */
export function inFormWords(problem: FieldProblem, labels: FieldLabels): string {
  let text = problem.message;
  for (const [field, label] of Object.entries(labels)) {
    let seen = false;
    text = text.replace(new RegExp(`(?<![\\w.])${escapedForRegExp(field)}(?![\\w.])`, 'g'), (word) => {
      const first = !seen;
      seen = true;
      return first || label !== capitalised(field) ? label : word;
    });
  }
  return capitalised(text);
}

/** The problems of a refused management change with the form's fields, each in its words; undefined for a refusal of another kind. */
export function managementProblems(refusal: ManagementRefusal, labels: FieldLabels): string[] | undefined {
  if (refusal.kind === 'invalid_field') return (refusal.fields ?? [refusal]).map((p) => inFormWords(p, labels));
  if (refusal.kind === 'invalid_url') return [inFormWords({ field: 'url', message: refusal.message }, labels)];
  if (refusal.kind === 'limit_reached' && refusal.field !== undefined) return [inFormWords({ field: refusal.field, message: pageErrorFor(refusal).message }, labels)];
  return undefined;
}

/** The problems of a refused identity change with the form's fields, each in its words; undefined for a refusal of another kind. */
export function identityProblems(refusal: IdentityRefusal, labels: FieldLabels): string[] | undefined {
  if (refusal.kind === 'invalid_field') return (refusal.fields ?? [refusal]).map((p) => inFormWords(p, labels));
  if (refusal.kind === 'missing_field' || refusal.kind === 'name_taken' || refusal.kind === 'email_taken' || refusal.kind === 'incorrect_password') {
    return [inFormWords({ field: refusal.field, message: pageErrorForIdentity(refusal).message }, labels)];
  }
  return undefined;
}
