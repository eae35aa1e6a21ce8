// Authorizing an application, as WordPress's authorize-application.php: an application names itself (app_name,
// an optional app_id UUID) and says where to send the user back (success_url, reject_url); approving creates an
// application password and sends it to success_url with site_url and user_login, rejecting sends the user to
// reject_url (by default success_url?success=false). The rules are here; the page only translates.
import type { User } from '../../domain/user.js';
import type { Logger } from '../../log.js';
import type { ApplicationPasswords, CreatedApplicationPassword } from './application-passwords.js';
import { isUuid } from './application-passwords.js';
import { granted, invalidField, type Identified } from './refusals.js';

/** What an application asks for, as it came (the query of the page, or the fields of its form); '' is absent. */
export interface AuthorizationRequest {
  appName?: string;
  appId?: string;
  successUrl?: string;
  rejectUrl?: string;
}

/** A request that passed every check: where approving and rejecting lead. */
export interface CheckedAuthorization {
  appName: string;
  appId: string | undefined;
  successUrl: URL | undefined;
  /** The reject_url given, else success_url with success=false, else none. */
  rejectUrl: URL | undefined;
}

export interface Approval {
  created: CreatedApplicationPassword;
  /** success_url with site_url, user_login and password added; undefined without a success_url (show it once). */
  redirectTo: string | undefined;
}

/** Hosts that may be reached over plain http: the user's own machine (WordPress allows http for local use). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Longer than any redirect URL a client needs, short enough to carry in a form and a Location header. */
const MAX_URL_LENGTH = 2048;

const present = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/** A URL the user may be sent to with a secret: https, or http on a loopback host. */
function redirectUrl(field: 'success_url' | 'reject_url', text: string): Identified<URL> {
  if (text.length > MAX_URL_LENGTH) return invalidField(field, `${field} must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return invalidField(field, `${field} must be an absolute URL`);
  }
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!allowed) return invalidField(field, `${field} must use https (http only on 127.0.0.1, ::1 or localhost)`);
  return granted(url);
}

/** `url` with `added` appended to its query; the query it had is kept as it was written. */
function withQuery(url: URL, added: Record<string, string>): URL {
  const out = new URL(url);
  const extra = new URLSearchParams(added).toString();
  out.search = out.search ? `${out.search.slice(1)}&${extra}` : extra;
  return out;
}

export class ApplicationAuthorization {
  constructor(private readonly passwords: ApplicationPasswords) {}

  /** wp_is_authorize_application_password_request_valid, with app_name required and http only on loopback. */
  check(r: AuthorizationRequest): Identified<CheckedAuthorization> {
    const appName = present(r.appName);
    if (appName === undefined || appName.trim() === '') return invalidField('app_name', 'app_name is required: the name of the application asking for access');
    const appId = present(r.appId);
    if (appId !== undefined && !isUuid(appId)) return invalidField('app_id', 'app_id must be a UUID');
    const success = present(r.successUrl);
    const successUrl = success === undefined ? undefined : redirectUrl('success_url', success);
    if (successUrl && !successUrl.ok) return successUrl;
    const reject = present(r.rejectUrl);
    const rejectUrl = reject === undefined ? undefined : redirectUrl('reject_url', reject);
    if (rejectUrl && !rejectUrl.ok) return rejectUrl;
    const fallback = successUrl ? withQuery(successUrl.value, { success: 'false' }) : undefined;
    return granted({ appName, appId, successUrl: successUrl?.value, rejectUrl: rejectUrl?.value ?? fallback });
  }

  /**
   * The user approves: an application password named after the application (the same use case as
   * POST /users/me/application-passwords, so its rules apply), sent to success_url unchunked, as WordPress does.
   */
  async approve(user: User, request: CheckedAuthorization, siteUrl: string, log: Logger): Promise<Identified<Approval>> {
    const made = await this.passwords.create(user, { name: request.appName, appId: request.appId }, log);
    if (!made.ok) return made;
    const created = made.value;
    const added = { site_url: siteUrl, user_login: user.email, password: created.password.replace(/ /g, '') };
    log.info({ user: user.id, uuid: created.uuid, app_id: request.appId ?? null }, 'application authorized');
    return granted({ created, redirectTo: request.successUrl ? withQuery(request.successUrl, added).href : undefined });
  }

  /** The user rejects: nothing is created; where the user goes (undefined: nowhere was given). */
  reject(request: CheckedAuthorization): string | undefined {
    return request.rejectUrl?.href;
  }
}
