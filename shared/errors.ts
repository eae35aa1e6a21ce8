// Every error that crosses a boundary, with its protocol code, in one table per interface.

/** Admin-interface error codes (`errors.code`) and the HTTP status each one carries. */
export const ADMIN_ERRORS = {
  missing_api_key: 401,
  invalid_api_key: 401,
  sending_key_not_allowed: 401,
  admin_key_in_body: 401,
  insufficient_scope: 403,
  forbidden: 403,
  suspended_by_platform: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  credits_required: 402,
  domain_exists: 409,
  invalid_json: 400,
  invalid_path: 400,
  account_id_not_allowed: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_domain: 422,
  validation_failed: 422,
  paging_too_deep: 422,
  unsupported_event: 422,
  invalid_url: 422,
  limit_reached: 422,
  rate_limited: 429,
  daily_limit_reached: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** An admin-interface error: body `{status_code, message, errors: {code, …flat strings}}`. */
export class AdminError extends Error {
  readonly status: number;
  constructor(
    readonly code: AdminErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = ADMIN_ERRORS[code];
  }

  body(): { status_code: number; message: string; errors: Record<string, string> } {
    return { status_code: this.status, message: this.message, errors: { code: this.code, ...this.details } };
  }
}

export const adminError = (code: AdminErrorCode, message: string, details?: Record<string, string>, headers?: Record<string, string>): AdminError =>
  new AdminError(code, message, details, headers);

/** Sending-interface error types and their HTTP statuses, as the specification's sending table. */
export const SEND_ERROR_TYPES = {
  unauthorized: 401,
  forbidden: 403,
  validation_error: 422,
  bad_request: 400,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type SendErrorType = keyof typeof SEND_ERROR_TYPES;

/** A sending-interface error: body `{status_code, error_type, message, errors: {field: {code: text}}}`. */
export class SendError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: SendErrorType,
    message: string,
    readonly errors: Readonly<Record<string, Record<string, string>>>,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  body(): { status_code: number; error_type: string; message: string; errors: Record<string, Record<string, string>> } {
    return { status_code: this.status, error_type: this.errorType, message: this.message, errors: { ...this.errors } };
  }
}
