// Where an account's users land after signing in and after signing out, per role (FluentAuth's auth-forms
// redirect settings): paths of this site only, never another host. The one check of such a path, used by these
// settings and by the sign-in page's redirect_to alike.
import { ACCOUNT_ROLES, type AccountRole } from './user.js';

export interface RedirectRule {
  role: AccountRole;
  /** A path of this site, or null: the default. */
  login: string | null;
  logout: string | null;
}

export interface SignInRedirects {
  /** Where users without a rule of their role land; null: the dashboard's home (after signing in), the sign-in page (after signing out). */
  defaultLogin: string | null;
  defaultLogout: string | null;
  rules: RedirectRule[];
}

export const NO_REDIRECTS: SignInRedirects = { defaultLogin: null, defaultLogout: null, rules: [] };

/** Starts with one `/` that a browser cannot read as the start of `//host`. */
const isSingleSlashPath = (path: string): boolean => path.startsWith('/') && path[1] !== '/' && path[1] !== '\\';

const BASE = 'http://site.invalid';

/**
 * `value` as a path of this site, normalised first (the URL parser resolves `.`/`..` and their percent-encoded
 * forms, turns `\` into `/`, encodes what is not ASCII) and only then checked: a single leading `/` (a browser reads
 * `//host` and `/\host` as another host), the same origin. Undefined when it is not one.
 */
export function normalisedSitePath(value: string): string | undefined {
  if (!value.startsWith('/') || /\p{Cc}/u.test(value) || !isSingleSlashPath(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return undefined;
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === BASE && isSingleSlashPath(path) ? path : undefined;
}

/** Where a user of `role` lands after signing in or out, by the rules; null: the product's default. */
export function landingOf(r: SignInRedirects, role: AccountRole, after: 'login' | 'logout'): string | null {
  const rule = r.rules.find((x) => x.role === role);
  return rule?.[after] ?? (after === 'login' ? r.defaultLogin : r.defaultLogout);
}

/** What is wrong with redirect settings: a path that is not one of this site as written, a role twice or unknown. */
export function redirectProblems(r: SignInRedirects): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const check = (field: string, path: string | null) => {
    if (path === null) return;
    if (path.length > 500 || normalisedSitePath(path) !== path)
      problems.push({ field, message: `${field} must be a path of this site as a browser would read it (starting with one /, no .., at most 500 characters)` });
  };
  check('default_login_redirect', r.defaultLogin);
  check('default_logout_redirect', r.defaultLogout);
  r.rules.forEach((rule, i) => {
    if (!(ACCOUNT_ROLES as readonly string[]).includes(rule.role)) problems.push({ field: `redirect_rules[${i}].role`, message: 'role must be owner, admin or viewer' });
    if (r.rules.findIndex((x) => x.role === rule.role) !== i) problems.push({ field: `redirect_rules[${i}].role`, message: `${rule.role} has two rules` });
    check(`redirect_rules[${i}].login`, rule.login);
    check(`redirect_rules[${i}].logout`, rule.logout);
  });
  return problems;
}
