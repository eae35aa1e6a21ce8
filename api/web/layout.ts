// The two page layouts: the plain one of the pages before signing in (a card with a title), and the dashboard's
// (a bar with the team switcher and the user's links, the sections beside, the page). Both link the hashed
// stylesheet and scripts (web/assets.ts); nothing inline, so the Content-Security-Policy allows no inline code.
import { html, type Html } from './html.js';
import { assetUrl } from './assets.js';
import { NONCE_FIELD, TEAM_FIELD, type AccountViewer, type Viewer } from './viewer.js';
import type { Team } from '../../shared/domain/team.js';

export interface Section {
  path: string;
  label: string;
  /** Shown only to owners (billing). */
  ownerOnly?: boolean;
}

export const ACCOUNT_SECTIONS: readonly Section[] = [
  { path: '/', label: 'Overview' },
  { path: '/domains', label: 'Domains' },
  { path: '/logs', label: 'Logs' },
  { path: '/statistics', label: 'Statistics' },
  { path: '/keys', label: 'Keys' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/suppressions', label: 'Suppressions' },
  { path: '/team', label: 'Team' },
  { path: '/support', label: 'Support' },
  { path: '/billing', label: 'Billing', ownerOnly: true },
  { path: '/dashboards', label: 'Dashboards' },
];

export const OPERATOR_SECTIONS: readonly Section[] = [
  { path: '/admin', label: 'Platform' },
  { path: '/admin/tenants', label: 'Tenants' },
  { path: '/admin/domains', label: 'Domains' },
  { path: '/admin/logs', label: 'Logs' },
  { path: '/admin/credits', label: 'Credits' },
  { path: '/admin/invitations', label: 'Invitations' },
  { path: '/admin/support', label: 'Support' },
  { path: '/admin/suppressions', label: 'Suppressions' },
  { path: '/admin/audit-log', label: 'Audit log' },
  { path: '/admin/emails', label: 'Emails' },
  { path: '/admin/integrity', label: 'Integrity' },
  { path: '/admin/site-health', label: 'Site health' },
  { path: '/admin/sign-in-providers', label: 'Sign-in' },
  { path: '/admin/branding', label: 'Sign-in page' },
  { path: '/admin/single-sign-on', label: 'Single sign-on' },
  { path: '/dashboards', label: 'Dashboards' },
];

/** The hidden fields every form of a signed-in page carries: its CSRF token and the team it acts on. */
export const formGuard = (v: Viewer): Html =>
  html`<input
      type="hidden"
      name="${NONCE_FIELD}"
      value="${v.formNonce}"
    />${v.kind === 'account' ? html`<input type="hidden" name="${TEAM_FIELD}" value="${v.acting.id}" />` : undefined}`;

function head(title: string, scripts: boolean, stylesheet?: string): Html {
  return html`<meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="same-origin" />
    <meta name="color-scheme" content="light dark" />
    <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}' />
    <title>${title} · Tern</title>
    <link rel="icon" type="image/svg+xml" href="${assetUrl('favicon.svg')}" />
    <link rel="stylesheet" href="${assetUrl('app.css')}" />
    ${stylesheet === undefined ? undefined : html`<link rel="stylesheet" href="${stylesheet}" />`}
    ${
      scripts
        ? html`<link rel="stylesheet" href="${assetUrl('uplot.css')}" />
            <script src="${assetUrl('htmx.js')}" defer></script>
            <script src="${assetUrl('uplot.js')}" defer></script>
            <script src="${assetUrl('app.js')}" defer></script>`
        : undefined
    }`;
}

/**
 * A page before signing in (or an error page): one card, its title on top. `look`: the platform's branding of the
 * pages before signing in (a stylesheet of this site after Tern's, a header above the title).
 */
export const plainDocument = (title: string, body: Html, look: { stylesheet?: string; header?: Html } = {}): Html =>
  html`<!doctype html>
    <html lang="en">
      <head>
        ${head(title, false, look.stylesheet)}
      </head>
      <body>
        <main class="plain" id="main">
          ${look.header}
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;

const teamLabel = (t: Team): string => (t.parentId === null ? `${t.name} (account)` : t.name);

function teamSwitcher(v: AccountViewer, returnTo: string): Html | undefined {
  if (v.teams.length < 2) return html`<span class="muted">${teamLabel(v.acting)}</span>`;
  const options = v.teams.map((t) => html`<option value="${t.id}" ${t.id === v.acting.id ? html`selected` : undefined}>${teamLabel(t)}</option>`);
  return html`<form method="post" action="/switch-team">
    <input type="hidden" name="${NONCE_FIELD}" value="${v.formNonce}" />
    <input type="hidden" name="redirect_to" value="${returnTo}" />
    <label for="team-switcher" class="muted">Team</label>
    <select id="team-switcher" name="team" data-autosubmit>
      ${options}
    </select>
    <button type="submit" class="small">Switch</button>
  </form>`;
}

function bar(v: Viewer, returnTo: string): Html {
  return html`<header class="bar">
    <a class="brand" href="${v.kind === 'operator' ? '/admin' : '/'}">Tern</a>
    ${v.kind === 'account' ? teamSwitcher(v, returnTo) : html`<span class="muted">Platform operator</span>`}
    <a href="/profile">${v.user.name || v.user.email}</a>
    <form method="post" action="/logout">
      <input type="hidden" name="${NONCE_FIELD}" value="${v.formNonce}" />
      <button type="submit" class="small" id="log-out">Log out</button>
    </form>
  </header>`;
}

function sections(v: Viewer, current: string): Html {
  const list = v.kind === 'operator' ? OPERATOR_SECTIONS : ACCOUNT_SECTIONS.filter((s) => !s.ownerOnly || v.user.role === 'owner');
  const link = (s: Section) => html`<li><a href="${s.path}" ${s.path === current ? html`aria-current="page"` : undefined}>${s.label}</a></li>`;
  return html`<nav class="sections" aria-label="Sections">
    <ul>
      ${list.map(link)}
    </ul>
  </nav>`;
}

/** The banner of a suspended team, with why (as the platform or the owner said it). */
function suspendedBanner(v: Viewer): Html | undefined {
  if (v.kind !== 'account' || v.acting.status !== 'suspended') return undefined;
  const why = v.acting.suspension?.reason ?? '';
  return html`<p class="suspended" role="status"><strong>This team is suspended:</strong> ${why}. Its mail is not sent until it is reactivated.</p>`;
}

export interface AppFrame {
  viewer: Viewer;
  /** The section the page belongs to (its path in the navigation). */
  section: string;
  /** This page's own path and query, where the team switcher comes back to. */
  returnTo: string;
}

/** A signed-in page: the bar, the sections, the page's title and body. */
export const appDocument = (title: string, body: Html, f: AppFrame): Html =>
  html`<!doctype html>
    <html lang="en">
      <head>
        ${head(title, true)}
      </head>
      <body data-nonce="${f.viewer.restNonce}" data-team="${f.viewer.kind === 'account' ? f.viewer.acting.id : ''}">
        <a class="skip" href="#main">Skip to the content</a>
        ${bar(f.viewer, f.returnTo)}
        <div class="frame">
          ${sections(f.viewer, f.section)}
          <main id="main">
            ${suspendedBanner(f.viewer)}
            <h1>${title}</h1>
            ${body}
          </main>
        </div>
      </body>
    </html>`;
