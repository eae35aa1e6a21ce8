// The security page's "After signing in and out" form: where the account's users land, by default and per role
// (the same use case as POST /api/tern-auth/v1/auth-forms-settings, core.loginSecurity.updateRedirects). A path
// left empty is the product's default; the core refuses anything that is not a path of this site as written.
import { ACCOUNT_ROLES, type AccountRole } from '../../../shared/domain/user.js';
import type { RedirectRule, SignInRedirects } from '../../../shared/domain/sign-in-redirects.js';
import { html, type Html } from '../html.js';
import type { FieldLabels } from '../errors.js';
import { formGuard } from '../layout.js';
import { formErrors } from '../parts.js';
import type { Viewer } from '../viewer.js';

export const REDIRECTS_ACTION = '/security/redirects';

const ROLE_NAMES: Readonly<Record<AccountRole, string>> = { owner: 'Owners', admin: 'Admins', viewer: 'Viewers' };

/** A path as typed: empty is none (the default). */
const pathOf = (form: URLSearchParams, name: string): string | null => {
  const value = (form.get(name) ?? '').trim();
  return value === '' ? null : value;
};

/** The redirects a form asks for: the defaults, and a rule for each role given a path (in the roles' order). */
export function redirectsOf(form: URLSearchParams): SignInRedirects {
  const rules: RedirectRule[] = ACCOUNT_ROLES.map((role) => ({ role, login: pathOf(form, `${role}_login`), logout: pathOf(form, `${role}_logout`) })).filter(
    (r) => r.login !== null || r.logout !== null,
  );
  return { defaultLogin: pathOf(form, 'default_login'), defaultLogout: pathOf(form, 'default_logout'), rules };
}

/** The core names a rule's field by its place in the rules (redirect_rules[1].login): the form says it by its role. */
export function redirectLabels(r: SignInRedirects): FieldLabels {
  const labels: Record<string, string> = { default_login_redirect: 'After signing in', default_logout_redirect: 'After signing out' };
  r.rules.forEach((rule, i) => {
    labels[`redirect_rules[${i}].login`] = `${ROLE_NAMES[rule.role]}: after signing in`;
    labels[`redirect_rules[${i}].logout`] = `${ROLE_NAMES[rule.role]}: after signing out`;
  });
  return labels;
}

/** The values the form shows: what was typed in a refused form, else what is saved. */
function shownValues(saved: SignInRedirects, typed: Record<string, string> | undefined): Record<string, string> {
  if (typed) return typed;
  const values: Record<string, string> = { default_login: saved.defaultLogin ?? '', default_logout: saved.defaultLogout ?? '' };
  for (const rule of saved.rules) {
    values[`${rule.role}_login`] = rule.login ?? '';
    values[`${rule.role}_logout`] = rule.logout ?? '';
  }
  return values;
}

function pathField(name: string, label: string, value: string, placeholder: string): Html {
  return html`<label for="${name}">${label}</label>
    <input type="text" id="${name}" name="${name}" maxlength="500" value="${value}" placeholder="${placeholder}" spellcheck="false" />`;
}

export function redirectsForm(v: Viewer, saved: SignInRedirects, shown: { messages?: string[]; typed?: Record<string, string> }): Html {
  const values = shownValues(saved, shown.typed);
  const role = (r: AccountRole) =>
    html`<fieldset>
      <legend>${ROLE_NAMES[r]}</legend>
      ${pathField(`${r}_login`, 'After signing in', values[`${r}_login`] ?? '', 'the default above')}
      ${pathField(`${r}_logout`, 'After signing out', values[`${r}_logout`] ?? '', 'the default above')}
    </fieldset>`;
  return html`<h3>After signing in and out</h3>
    <p class="hint">Paths of this dashboard only, such as <code>/domains</code> or <code>/logs?status=bounced</code>. Empty: the usual page.</p>
    ${shown.messages ? formErrors(shown.messages) : undefined}
    <form method="post" action="${REDIRECTS_ACTION}">
      ${formGuard(v)} ${pathField('default_login', 'After signing in', values.default_login ?? '', '/ (the overview)')}
      ${pathField('default_logout', 'After signing out', values.default_logout ?? '', '/wp-login.php (the sign-in page)')} ${ACCOUNT_ROLES.map(role)}
      <button type="submit" class="primary" id="save-redirects">Save where users land</button>
    </form>`;
}
