// The dashboard interface's errors, in WordPress's shape `{code, message, data: {status, …}}`: one table of
// the codes it uses with their status, and the one error mapper every dashboard failure goes through (route
// failures, body failures, validation (worded in api/http/dashboard/params.ts), and what nobody threw on purpose: 503 or 500
// without internals).
import { BodyError } from './body.js';
import { errorMapper, type Answer } from './pipeline.js';

/** Every code the dashboard answers with, and its HTTP status (rest_forbidden: 401 anonymous, 403 otherwise). */
export const DASHBOARD_ERRORS = {
  rest_no_route: 404,
  rest_forbidden: 403,
  rest_cookie_invalid_nonce: 403,
  rest_invalid_param: 400,
  rest_missing_callback_param: 400,
  rest_invalid_json: 400,
  rest_batch_not_allowed: 400,
  parse_path_failed: 400,
  rest_invalid_page_number: 400,
  rest_payload_too_large: 413,
  rest_unsupported_media_type: 415,
  rest_domain_invalid_id: 404,
  rest_team_invalid_id: 404,
  rest_sending_key_invalid_id: 404,
  rest_admin_key_invalid_id: 404,
  rest_webhook_invalid_id: 404,
  rest_suppression_invalid_id: 404,
  rest_message_invalid_id: 404,
  rest_invoice_invalid_id: 404,
  rest_payment_invalid_id: 404,
  rest_support_ticket_invalid_id: 404,
  rest_support_response_invalid_id: 404,
  rest_support_attachment_invalid_id: 404,
  rest_sso_site_invalid_id: 404,
  tern_sso_token_invalid: 403,
  rest_support_ticket_closed: 409,
  rest_support_ticket_not_closed: 409,
  rest_domain_exists: 409,
  rest_credits_required: 402,
  rest_insufficient_credits: 400,
  rest_limit_reached: 400,
  rest_team_suspended: 403,
  rest_too_many_requests: 429,
  rest_dns_not_connected: 409,
  rest_dns_zone_not_found: 422,
  rest_dns_provider_refused: 400,
  rest_dns_provider_unavailable: 502,
  rest_dns_records_unavailable: 409,
  rest_invalid_credentials: 401,
  incorrect_password: 401,
  rest_incorrect_password: 400,
  rest_user_invalid_id: 404,
  rest_account_invalid_id: 404,
  rest_application_password_not_found: 404,
  rest_auth_log_entry_invalid_id: 404,
  rest_icon_invalid_id: 404,
  rest_upload_no_data: 400,
  rest_upload_file_too_big: 400,
  rest_upload_sideload_error: 400,
  rest_upload_too_many_files: 400,
  rest_upload_unexpected_field: 400,
  existing_user_email: 400,
  application_password_duplicate_name: 409,
  rest_system_mail_unavailable: 503,
  rest_payments_offline: 409,
  rest_payment_failed: 402,
  rest_no_saved_card: 409,
  rest_suppressed_addresses: 409,
  rest_invalid_signature: 400,
  rest_invitation_invalid_id: 404,
  rest_invitation_invalid: 400,
  rest_invitation_expired: 400,
  invalid_key: 400,
  expired_key: 400,
  tern_password_change_required: 403,
  tern_two_step_required: 401,
  tern_plugins_not_supported: 501,
  tern_two_step_code_invalid: 401,
  tern_two_step_expired: 401,
  tern_magic_link_invalid: 401,
  application_passwords_disabled: 401,
  // The content namespace (wp/v2), with WordPress's own codes; the "may not" codes answer 401 to an anonymous
  // caller and 403 to a signed-in one (rest_authorization_required_code), given when thrown.
  rest_post_invalid_id: 404,
  rest_post_invalid_page_number: 400,
  rest_post_invalid_parent: 404,
  rest_post_exists: 400,
  rest_post_no_autosave: 404,
  rest_revision_parent_id_mismatch: 404,
  rest_already_trashed: 410,
  rest_trash_not_supported: 501,
  rest_term_invalid: 404,
  rest_url_required: 400,
  invalid_menu_id: 400,
  rest_duplicate_font_family: 400,
  rest_theme_not_found: 404,
  rest_term_exists: 400,
  term_exists: 400,
  rest_term_invalid_parent: 400,
  rest_forbidden_context: 403,
  rest_forbidden_status: 403,
  rest_cannot_create: 403,
  rest_cannot_edit: 403,
  rest_cannot_delete: 403,
  rest_cannot_read: 403,
  rest_cannot_publish: 403,
  rest_cannot_view: 403,
  rest_cannot_assign_term: 403,
  rest_cannot_edit_others: 403,
  rest_invalid_author: 400,
  rest_invalid_field: 400,
  rest_invalid_slug: 400,
  rest_user_exists: 400,
  existing_user_login: 400,
  rest_user_invalid_reassign: 400,
  rest_user_cannot_view: 403,
  rest_cannot_create_user: 403,
  rest_cannot_edit_roles: 403,
  rest_user_cannot_delete: 403,
  rest_forbidden_orderby: 403,
  rest_not_logged_in: 401,
  rest_user_invalid_argument: 400,
  rest_user_invalid_username: 400,
  rest_user_invalid_password: 400,
  rest_user_invalid_email: 400,
  rest_cannot_delete_self: 400,
  rest_upload_no_content_disposition: 400,
  rest_upload_no_content_type: 400,
  rest_upload_hash_mismatch: 412,
  rest_upload_unknown_error: 500,
  rest_unknown_attachment: 404,
  rest_cannot_edit_file_type: 400,
  tern_image_editing_unsupported: 501,
  rest_template_not_found: 404,
  rest_cannot_manage_templates: 403,
  rest_cannot_export_templates: 403,
  rest_type_invalid: 404,
  rest_status_invalid: 404,
  rest_taxonomy_invalid: 404,
  rest_font_family_invalid_id: 404,
  rest_font_face_invalid_id: 404,
  rest_font_face_parent_id_mismatch: 404,
  rest_global_styles_not_found: 404,
  oembed_invalid_url: 404,
  no_response: 404,
  no_content: 404,
  rest_internal_error: 500,
  rest_unavailable: 503,
} as const;

export type DashboardErrorCode = keyof typeof DASHBOARD_ERRORS;

/** WordPress's messages, where it has one for the code. */
export const MESSAGES = {
  rest_no_route: 'No route was found matching the URL and request method.',
  rest_forbidden: 'Sorry, you are not allowed to do that.',
  rest_cookie_invalid_nonce: 'Cookie check failed',
  rest_invalid_json: 'Invalid JSON body passed.',
  rest_batch_not_allowed: 'The requested route does not support batch requests.',
  parse_path_failed: 'Could not parse the path.',
  rest_invalid_page_number: 'The page number requested is larger than the number of pages available.',
  incorrect_password: 'The provided password is an invalid application password.',
  rest_application_password_not_found: 'Application password not found.',
  existing_user_email: 'Sorry, that email address is already used!',
  application_password_duplicate_name: 'Each application name should be unique.',
  rest_upload_no_data: 'No data supplied.',
  rest_upload_sideload_error: 'Sorry, you are not allowed to upload this file type.',
  rest_post_invalid_id: 'Invalid post ID.',
  rest_post_invalid_page_number: 'The page number requested is larger than the number of pages available.',
  rest_post_exists: 'Cannot create existing post.',
  rest_already_trashed: 'The post has already been deleted.',
  rest_term_invalid: 'Term does not exist.',
  rest_user_invalid_id: 'Invalid user ID.',
  rest_forbidden_context: 'Sorry, you are not allowed to edit this post.',
  rest_upload_no_content_disposition: 'No Content-Disposition supplied.',
  rest_upload_no_content_type: 'No Content-Type supplied.',
  rest_upload_hash_mismatch: 'Content hash did not match expected.',
  rest_trash_not_supported: "The post does not support trashing. Set 'force=true' to delete.",
  rest_forbidden_status: 'Status is forbidden.',
  rest_unknown_attachment: 'Unable to get meta information for file.',
  rest_cannot_edit_file_type: 'This type of file cannot be edited.',
  rest_revision_parent_id_mismatch: 'The revision does not belong to the specified parent.',
  rest_post_no_autosave: 'There is no autosave revision for this post.',
} as const;

/** A "may not" error of the content namespace: 401 for an anonymous caller, 403 for a signed-in one. */
export const notAllowed = (code: DashboardErrorCode, message: string, anonymous: boolean): DashboardError =>
  new DashboardError(code, message, {}, {}, anonymous ? 401 : 403);

export interface ErrorBody {
  code: string;
  message: string;
  data: { status: number } & Record<string, unknown>;
}

/** A dashboard error: the code's status unless one is given (rest_forbidden 401), extra data, headers. */
export class DashboardError extends Error {
  readonly status: number;
  constructor(
    readonly code: DashboardErrorCode,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? DASHBOARD_ERRORS[code];
  }

  body(): ErrorBody {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }
}

export const dashboardError = (code: DashboardErrorCode, message: string, data?: Record<string, unknown>, headers?: Record<string, string>): DashboardError =>
  new DashboardError(code, message, data, headers);

export const noRoute = (): DashboardError => dashboardError('rest_no_route', MESSAGES.rest_no_route);

/** rest_forbidden with WordPress's rest_authorization_required_code: 401 for an anonymous caller, else 403. */
export const forbidden = (anonymous: boolean): DashboardError => new DashboardError('rest_forbidden', MESSAGES.rest_forbidden, {}, {}, anonymous ? 401 : 403);

/** A cookie sent with a wrong or stale nonce (WordPress's rest_cookie_check_errors). */
export const invalidNonce = (): DashboardError => dashboardError('rest_cookie_invalid_nonce', MESSAGES.rest_cookie_invalid_nonce);

/** A rate limit: 429 with Retry-After. */
export const tooManyRequests = (message: string, retryAfterS: number): DashboardError =>
  dashboardError('rest_too_many_requests', message, {}, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });

/** A malformed or oversized body, before any route saw it. */
function bodyErrorOf(err: BodyError): DashboardError {
  switch (err.code) {
    case 'invalid_json':
      return dashboardError('rest_invalid_json', MESSAGES.rest_invalid_json, { json_error_message: err.message.replace(/^The request body is not valid JSON: /, '') });
    case 'payload_too_large':
      return dashboardError('rest_payload_too_large', err.message);
    case 'unsupported_media_type':
      return dashboardError('rest_unsupported_media_type', err.message);
  }
}

export const answerOf = (e: DashboardError): Answer => ({ status: e.status, body: e.body(), headers: { ...e.headers } });

export const dashboardErrors = errorMapper({
  known(err) {
    if (err instanceof DashboardError) return answerOf(err);
    if (err instanceof BodyError) return answerOf(bodyErrorOf(err));
    return undefined;
  },
  unavailable: () => answerOf(dashboardError('rest_unavailable', 'Temporarily unavailable; retry shortly.')),
  internal: () => answerOf(dashboardError('rest_internal_error', 'Internal error; it has been logged.')),
});
