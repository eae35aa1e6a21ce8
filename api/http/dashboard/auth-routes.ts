// The authentication namespace (tern-auth/v1): log in (a new session cookie and its nonce), log out, and the
// login security an account's owners and admins manage: settings, the auth log, quick stats.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute, type Reply } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { ACCOUNT_ROLES } from '../../../shared/domain/user.js';
import { AUTH_RESULTS } from '../../../shared/domain/login-security.js';
import type { StatsRange } from '../../../shared/core/identity/login-security.js';
import type { SignInRedirects } from '../../../shared/domain/sign-in-redirects.js';
import { clearedSessionCookie, headerOf, secureCookies, sessionCookie, sessionToken } from '../../pipeline/credentials.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { dashboardErrorForIdentity, identified } from '../../pipeline/identity-errors.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { authLogView, authStatsView, loginSettingsView, userView } from './views.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import type { User } from '../../../shared/domain/user.js';
import type { ClientInfo } from '../../../shared/core/identity/index.js';

type Route = DashboardRoute<DashboardCaller>;

/** Who signs in, as the auth log and the session record it. */
export const clientOf = (request: Incoming): ClientInfo => ({ address: request.address, userAgent: headerOf(request, 'user-agent') ?? '' });

/** A sign-in's answer (a login, an invitation accepted): the user and the nonce, the session cookie, the nonce header. */
export const signedInReply = (ctx: AppContext, request: Incoming, s: { user: User; token: string; nonce: string }, redirectTo: string | null = null): Reply => ({
  body: { user: userView(s.user), nonce: s.nonce, redirect_to: redirectTo },
  headers: { 'Set-Cookie': sessionCookie(s.token, secureCookies(ctx, request)), 'X-WP-Nonce': s.nonce },
});

const login: Route = {
  namespace: 'tern-auth/v1',
  path: '/login',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: 'Log in: sets the session cookie and answers the user and the nonce to send as X-WP-Nonce',
      args: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1000 }) }),
      async handle({ ctx, params, request, log }) {
        const result = await ctx.core.logins.login({ email: params.email, password: params.password, ...clientOf(request) }, log);
        if (!result.ok) throw dashboardErrorForIdentity(result.refusal);
        return signedInReply(ctx, request, result, await ctx.core.loginSecurity.landing(result.user, 'login'));
      },
    }),
  ],
};

const loginCode: Route = {
  namespace: 'tern-auth/v1',
  path: '/login/code',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: "Two-step sign-in's second step: the challenge a login answered (tern_two_step_required) and the code mailed; sets the session cookie as a login does",
      args: Type.Object({
        challenge: Type.String({ minLength: 1, maxLength: 100, description: 'data.challenge of the login’s tern_two_step_required answer.' }),
        code: Type.String({ pattern: '^[0-9]{6}$', description: 'The six digits mailed.' }),
      }),
      async handle({ ctx, params, request, log }) {
        const result = await ctx.core.logins.verifyCode({ challenge: params.challenge, code: params.code, ...clientOf(request) }, log);
        if (!result.ok) throw dashboardErrorForIdentity(result.refusal);
        return signedInReply(ctx, request, result, await ctx.core.loginSecurity.landing(result.user, 'login'));
      },
    }),
  ],
};

const logout: Route = {
  namespace: 'tern-auth/v1',
  path: '/logout',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      passwordChangeStep: 'log_out',
      summary: "Log out: ends the cookie's session and clears the cookie",
      args: Type.Object({}),
      async handle({ ctx, request }) {
        const token = sessionToken(request);
        if (token) await ctx.core.sessions.end(token);
        return { body: { logged_out: true }, headers: { 'Set-Cookie': clearedSessionCookie(secureCookies(ctx, request)) } };
      },
    }),
  ],
};

/** FluentAuth's day_range values: "-N days", this month, or everything. */
const DAY_RANGE = /^(-([1-9][0-9]{0,3}) days|this_month|all_time)$/;

const statsRangeOf = (dayRange: string): StatsRange => {
  const days = DAY_RANGE.exec(dayRange)?.[2];
  return days !== undefined ? { days: Math.min(Number(days), 3650) } : { period: dayRange === 'this_month' ? 'this_month' : 'all_time' };
};

const settingArg = (description: string) => Type.Optional(Type.Integer({ description }));

const settings: Route = {
  namespace: 'tern-auth/v1',
  path: '/settings',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The account's login settings (owners and admins of the account)",
      args: Type.Object({}),
      handle: async ({ ctx, user }) => ({ body: loginSettingsView(identified(await ctx.core.loginSecurity.settings(signedIn(user).user))) }),
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: "Changes the account's login settings; each within its bounds, or nothing changes",
      args: Type.Object({
        failures_per_email: settingArg('Failed logins per email within the window before further attempts are refused (3 to 50).'),
        window_minutes: settingArg('The window failed logins are counted over, in minutes (1 to 1440).'),
        session_idle_minutes: settingArg('A session unused for this long ends (5 to 10080).'),
        session_absolute_hours: settingArg('A session ends this long after its login (1 to 720).'),
        log_retention_days: settingArg('Auth log entries older than this many days are deleted (1 to 3650).'),
        notify_on_lockout: Type.Optional(Type.Boolean({ description: 'Mail the account’s owners when an email is locked out.' })),
        application_passwords: Type.Optional(Type.Boolean({ description: 'Whether application passwords authenticate (false: every one is refused).' })),
        magic_link: Type.Optional(
          Type.Boolean({ description: 'Whether users may sign in by a single-use link mailed to them (not those of two_step_roles; false by default).' }),
        ),
        two_step_roles: Type.Optional(
          Type.Array(oneOf(ACCOUNT_ROLES), {
            description: 'Roles that sign in with a six-digit code mailed after their password ([] for none).',
            maxItems: ACCOUNT_ROLES.length,
            uniqueItems: true,
          }),
        ),
      }),
      async handle({ ctx, user, params, log }) {
        const change = {
          failuresPerEmail: params.failures_per_email,
          windowMinutes: params.window_minutes,
          sessionIdleMinutes: params.session_idle_minutes,
          sessionAbsoluteHours: params.session_absolute_hours,
          logRetentionDays: params.log_retention_days,
          notifyOnLockout: params.notify_on_lockout,
          applicationPasswords: params.application_passwords,
          twoStepRoles: params.two_step_roles,
          magicLink: params.magic_link,
        };
        return { body: loginSettingsView(identified(await ctx.core.loginSecurity.updateSettings(signedIn(user).user, change, log))) };
      },
    }),
  ],
};

const authLogs: Route = {
  namespace: 'tern-auth/v1',
  path: '/auth-logs',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "Every login attempt naming one of the account's users, newest first; by result, and by a search of the email or address",
      args: Type.Object({
        ...collectionArgs,
        status: Type.Optional(oneOf(AUTH_RESULTS, { description: 'Only attempts of this result.' })),
        search: Type.Optional(Type.String({ maxLength: 254, description: 'Part of the email or the client address, matched literally, any case.' })),
      }),
      async handle({ ctx, user, params, request }) {
        const filter = { results: params.status ? [params.status] : undefined, search: params.search || undefined };
        const page = identified(await ctx.core.loginSecurity.authLog(signedIn(user).user, { page: params.page, perPage: params.per_page }, filter));
        return pageReply(request, params, page.rows.map(authLogView), page.total);
      },
    }),
  ],
};

const quickStats: Route = {
  namespace: 'tern-auth/v1',
  path: '/quick-stats',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'Login attempts, failures and lockouts over the last 24 hours and 7 days, and over day_range',
      args: Type.Object({
        day_range: Type.String({
          default: '-7 days',
          pattern: DAY_RANGE.source,
          description: 'The range of `range`: "-N days" (N from 1 to 3650), "this_month" or "all_time".',
        }),
      }),
      async handle({ ctx, user, params }) {
        const stats = identified(await ctx.core.loginSecurity.quickStats(signedIn(user).user, statsRangeOf(params.day_range)));
        const inRange = stats.range.stats;
        return {
          body: {
            last_24h: authStatsView(stats.last24h),
            last_7d: authStatsView(stats.last7d),
            range: { day_range: params.day_range, ...authStatsView(inRange) },
          },
        };
      },
    }),
  ],
};

const deleteLog: Route = {
  namespace: 'tern-auth/v1',
  path: '/delete-log/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Deletes one entry of the auth log',
      args: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      async handle({ ctx, user, params }) {
        identified(await ctx.core.loginSecurity.deleteEntry(signedIn(user).user, params.id));
        return { body: { deleted: true, id: params.id } };
      },
    }),
  ],
};

const truncateLogs: Route = {
  namespace: 'tern-auth/v1',
  path: '/truncate-auth-logs',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      summary: "Deletes every entry of the account's auth log (owners only; recorded in the platform's audit log)",
      args: Type.Object({}),
      handle: async ({ ctx, user, log }) => ({ body: identified(await ctx.core.loginSecurity.truncate(signedIn(user).user, log)) }),
    }),
  ],
};

// Null first: with the string first, Ajv's coercion would read a null as ''.
const sitePath = (description: string) => Type.Union([Type.Null(), Type.String({ maxLength: 500 })], { description });

const redirectRule = Type.Object({
  role: oneOf(ACCOUNT_ROLES),
  login_redirect: sitePath('Where a user of this role lands after signing in; null: the default.'),
  logout_redirect: sitePath('Where a user of this role lands after signing out; null: the default.'),
});

const redirectView = (r: SignInRedirects) => ({
  redirect_settings: {
    default_login_redirect: r.defaultLogin,
    default_logout_redirect: r.defaultLogout,
    redirect_rules: r.rules.map((x) => ({ role: x.role, login_redirect: x.login, logout_redirect: x.logout })),
  },
});

const authForms: Route = {
  namespace: 'tern-auth/v1',
  path: '/auth-forms-settings',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "Where the account's users land after signing in and out, by role (owners and admins of the account)",
      args: Type.Object({}),
      handle: async ({ ctx, user }) => ({ body: redirectView(identified(await ctx.core.loginSecurity.redirects(signedIn(user).user))) }),
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      summary: 'Replaces where the account’s users land: paths of this site only (as a browser reads them), or nothing changes',
      args: Type.Object({
        redirect_settings: Type.Object({
          default_login_redirect: sitePath('Where users land after signing in when no rule names their role; null: the dashboard.'),
          default_logout_redirect: sitePath('Where users land after signing out when no rule names their role; null: the sign-in page.'),
          redirect_rules: Type.Array(redirectRule, { maxItems: ACCOUNT_ROLES.length }),
        }),
      }),
      async handle({ ctx, user, params, log }) {
        const r = params.redirect_settings;
        const wanted = {
          defaultLogin: r.default_login_redirect,
          defaultLogout: r.default_logout_redirect,
          rules: r.redirect_rules.map((x) => ({ role: x.role, login: x.login_redirect, logout: x.logout_redirect })),
        };
        return { body: redirectView(identified(await ctx.core.loginSecurity.updateRedirects(signedIn(user).user, wanted, log))) };
      },
    }),
  ],
};

const installPlugin: Route = {
  namespace: 'tern-auth/v1',
  path: '/install-plugin',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Refused: Tern has no plugins (FluentAuth installs its vendor’s SMTP plugin here; Tern is the mail server itself)',
      args: Type.Object({}),
      handle() {
        throw dashboardError(
          'tern_plugins_not_supported',
          'Tern has no plugins to install: it sends mail itself. Set up Tern’s own sender on the Platform page (/admin) or with TERNMAIL_SYSTEM_MAIL_FROM.',
        );
      },
    }),
  ],
};

export const authRoutes: readonly Route[] = [login, loginCode, logout, settings, authLogs, quickStats, deleteLog, truncateLogs, authForms, installPlugin];
