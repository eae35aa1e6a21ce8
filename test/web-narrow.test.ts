// Issue 22 item 11 (Must show 2): every page of the dashboard, the account's, the operator's and those before
// signing in, loaded in Chromium at 360 px and at 1280 px with realistic data holding long values (a long domain
// name and its DKIM key, a long subject and addresses, keys with every scope, a long webhook URL, a long team name,
// an audit entry with a long reason): nothing is wider than the screen, so nothing needs a sideways scroll. The
// pages are taken from the list the web server mounts (web/index.ts PAGES), so a new page is checked too, or the
// test says it does not know how to reach it.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { signedInTab } from './helpers/web-pages.js';
import { INVOICING } from './helpers/billing-setup.js';
import { storedDomain } from './helpers/sending-setup.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { PAGES } from '../api/web/index.js';
import { DESKTOP, PHONE } from './helpers/screenshots.js';

let h: Harness;
let browser: TestBrowser;

const LONG_DOMAIN = 'transactional-notifications.customer-communications.example-holdings.com';
const LONG_LOCAL = 'order-confirmations-and-shipping-updates-for-customers';
const LONG_SUBJECT = 'Your order ORD-2026-11-27-000000004711-XK9 has shipped: tracking number 1Z999AA10123456784 (DHL Express Worldwide)';
const LONG_TEAM = 'Customer communications and transactional notifications (Europe)';
const LONG_REASON = 'Suspended after repeated complaints about unsolicited mail reported by several receiving providers, pending review';

/** Pages that are not HTML (a CSV, a PDF): nothing to lay out. */
const NOT_HTML = new Set([
  '/suppressions/export',
  '/billing/invoices/:invoice_id',
  '/support/tickets/:id/attachments/:attachment_id',
  '/admin/support/:id/attachments/:attachment_id',
  // Redirects to and from a sign-in provider; their refusals are the sign-in page, laid out at /wp-login.php.
  '/sign-in/with/:provider',
  '/sign-in/callback/:provider',
  '/branding/:file',
  // A media library file (wp/v2/media's source_url): its bytes, as uploaded.
  '/media/:key/:name',
]);
/** Pages shown before signing in (or to anyone). */
const PUBLIC = new Set([
  '/wp-login.php',
  '/wp-admin/authorize-application.php',
  '/accept-invitation',
  '/forgot-password',
  '/reset-password',
  '/sso/accept',
  '/magic-link',
]);

interface World {
  owner: string;
  operator: string;
  /** Each parametrised page path with the values of this world (found once its lists exist). */
  params: Record<string, string>;
}

let world: World;

async function accountWithLongValues(): Promise<{ ownerEmail: string; accountId: number }> {
  const account = await h.account({ name: 'Northwind Traders International Holdings GmbH & Co. KG', credits: 5000 });
  const ownerEmail = await userOn(h, account.id, 'owner');
  await userOn(h, account.id, 'viewer');
  const domain = await storedDomain(h, account.id, LONG_DOMAIN);
  await storedDomain(h, account.id, `draft.${LONG_DOMAIN}`, true);
  const key = { key: account.key };
  for (const [path, body] of [
    ['/v2/api-keys', { name: 'Web shop checkout and order confirmation service (production)' }],
    [
      '/v2/webhooks',
      { title: 'Order events', url: `https://hooks.example.com/tern/events/${'a1b2c3d4'.repeat(12)}?token=${'x'.repeat(40)}`, events: ['bounced', 'complaint'] },
    ],
    ['/v2/teams', { name: LONG_TEAM }],
  ] as const) {
    const made = await h.request('POST', path, { ...key, body });
    if (made.status !== 201) throw new Error(`${path}: ${made.text}`);
  }
  const recipients = [
    { email: `${LONG_LOCAL}@${LONG_DOMAIN}`, name: '', kind: 'to' as const, domain: LONG_DOMAIN, state: 'queued' as const, reason: '' },
    { email: 'ok@dest.test', name: '', kind: 'cc' as const, domain: 'dest.test', state: 'queued' as const, reason: '' },
  ];
  const id = `narrow-${process.pid}`;
  const logged = await recordMessage(h.rt.store, {
    ...newMessage({ id, teamId: account.id, domainId: domain.id, recipients, cost: 0 }),
    subject: LONG_SUBJECT,
    fromEmail: `${LONG_LOCAL}@${LONG_DOMAIN}`,
    envelopeFrom: `bounces+${LONG_LOCAL}@${LONG_DOMAIN}`,
  });
  if (logged === 'insufficient_balance') throw new Error('not recorded');
  await h.rt.store.suppressions.add(account.id, {
    email: `${LONG_LOCAL}@${LONG_DOMAIN}`,
    status: 'bounced',
    reason: `550 5.1.1 <${LONG_LOCAL}@${LONG_DOMAIN}>: Recipient address rejected: User unknown in virtual mailbox table`,
    messageId: null,
  });
  return { ownerEmail, accountId: account.id };
}

/** The operator's actions the audit log lists: a suspension and a reactivation with long reasons, a grant. */
async function operatorActions(operatorEmail: string, accountId: number): Promise<void> {
  const rest = await logIn(h, operatorEmail);
  for (const [path, body] of [
    [`/api/tern/v2/admin/tenants/${accountId}/suspend`, { reason: LONG_REASON }],
    [`/api/tern/v2/admin/tenants/${accountId}/reactivate`, { reason: 'Reviewed with the customer: the list was cleaned and double opt-in added' }],
    ['/api/tern/v2/admin/credits', { account_id: accountId, amount: 2500, reason: 'Goodwill credit for the delivery incident of 2026-11-20 (ticket 4711)' }],
  ] as const) {
    const done = await h.request('POST', path, { ...withSession(rest), body });
    if (done.status >= 300) throw new Error(`${path}: ${done.text}`);
  }
}

/** A support ticket with long values, answered by the operator; its id. */
async function ticketWithLongValues(ownerEmail: string, operatorEmail: string): Promise<number> {
  const ns = '/api/tern-support/v1';
  const owner = await logIn(h, ownerEmail);
  const body = { title: LONG_SUBJECT, content: `Bounced: 550 5.1.1 <${LONG_LOCAL}@${LONG_DOMAIN}>: Recipient address rejected`, product_id: 'sending' };
  const made = await h.request<{ id: number }>('POST', `${ns}/tickets`, { ...withSession(owner), body });
  if (made.status !== 201) throw new Error(`ticket: ${made.text}`);
  const answer = { content: `See https://docs.example.com/${'bounces-and-suppressions/'.repeat(6)} for what to do.` };
  const answered = await h.request('POST', `${ns}/tickets/${made.body.id}/responses`, { ...withSession(await logIn(h, operatorEmail)), body: answer });
  if (answered.status !== 201) throw new Error(`answer: ${answered.text}`);
  return made.body.id;
}

/** The first link on `path` whose href matches `pattern`. */
async function firstLink(p: Page, path: string, pattern: RegExp): Promise<string> {
  await p.goto(`${h.url}${path}`);
  const hrefs = await p.locator('main a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  const found = hrefs.find((href) => pattern.test(href));
  if (!found) throw new Error(`no link matching ${pattern} on ${path}`);
  return found;
}

t.before(async () => {
  h = await startHarness({
    overrides: { ...INVOICING, systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 } },
  });
  browser = await startBrowser();
  const { ownerEmail, accountId } = await accountWithLongValues();
  const operator = await operatorOn(h);
  await operatorActions(operator, accountId);
  const ticket = await ticketWithLongValues(ownerEmail, operator);
  const listed = await h.request<Array<{ log_id: number }>>('GET', `/api/tern/v2/admin/logs?tenant_id=${accountId}`, withSession(await logIn(h, operator)));
  world = {
    owner: ownerEmail,
    operator,
    params: {
      '/admin/tenants/:id': `/admin/tenants/${accountId}`,
      '/admin/logs/:log_id': `/admin/logs/${listed.body[0]!.log_id}`,
      '/support/tickets/:id': `/support/tickets/${ticket}`,
      '/admin/support/:id': `/admin/support/${ticket}`,
      '/admin/emails/:id': '/admin/emails/invitation',
    },
  };
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

/** What is wider than the screen on the page as it is now: the document's scroll width and the widest elements. */
async function overflowOf(p: Page): Promise<{ width: number; scrollWidth: number; wider: string[] }> {
  return p.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wider: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      // A long word overflows the box holding it without widening the box: seen as its content being wider.
      const spills = getComputedStyle(el).overflowX === 'visible' && el.clientWidth > 0 && r.right - el.clientWidth + el.scrollWidth > width + 0.5;
      if (r.right > width + 0.5 || r.width > width + 0.5 || spills) {
        const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().replace(/\s+/g, '.')}` : ''}`;
        wider.push(`${name} (${Math.round(r.left)}..${Math.round(r.right)}): ${(el.textContent ?? '').trim().slice(0, 60)}`);
      }
    }
    return { width, scrollWidth: document.documentElement.scrollWidth, wider: wider.slice(0, 8) };
  });
}

/** The page at `path` fits the screen at 360 px and at 1280 px. */
async function fits(t: Test, p: Page, path: string): Promise<void> {
  for (const size of [PHONE, DESKTOP]) {
    await p.setViewportSize(size);
    const reply = await p.goto(`${h.url}${path}`);
    t.equal(reply?.status(), 200, `${path} is shown`);
    // The charts are drawn after the page loads, from the REST routes.
    await p.waitForLoadState('networkidle');
    const o = await overflowOf(p);
    t.ok(o.scrollWidth <= o.width, `${path} at ${size.width} px: no sideways scroll (${o.scrollWidth} ≤ ${o.width})`);
    t.same(o.wider, [], `${path} at ${size.width} px: no element wider than the screen`);
    if (size === PHONE) {
      const unlabelled = await p.locator('.table-wrap tbody td:not([data-label])').count();
      t.equal(unlabelled, 0, `${path}: each stacked cell shows its column's heading`);
    }
  }
}

/** Every GET page the server mounts, with its parameters filled in from `params`; the public ones apart. */
function pagesToCheck(params: Record<string, string>): { account: string[]; operator: string[]; public: string[]; unknown: string[] } {
  const out = { account: [] as string[], operator: [] as string[], public: [] as string[], unknown: [] as string[] };
  for (const pg of PAGES) {
    if (pg.method !== 'GET' || NOT_HTML.has(pg.path)) continue;
    const path = pg.path.includes(':') ? params[pg.path] : pg.path;
    if (path === undefined) out.unknown.push(pg.path);
    else if (PUBLIC.has(pg.path)) out.public.push(path);
    else if (pg.path.startsWith('/admin')) out.operator.push(path);
    else out.account.push(path);
  }
  return out;
}

t.test('every account page fits a 360 px screen and a desktop, with long values', async (t) => {
  const p = await signedInTab(browser, h.url, world.owner, '/');
  const domain = await firstLink(p, '/domains', /^\/domains\/[^/]+$/);
  world.params['/domains/:domain_hash'] = domain;
  world.params['/domains/:domain_hash/dmarc'] = `${domain}/dmarc`;
  world.params['/logs/:log_hash'] = await firstLink(p, '/logs', /^\/logs\/[^/?]+$/);
  world.params['/webhooks/:webhook_hash'] = await firstLink(p, '/webhooks', /^\/webhooks\/[^/?]+$/);
  const pages = pagesToCheck(world.params);
  t.same(pages.unknown, [], 'the test knows how to reach every page');
  t.ok(pages.account.length >= 16, `${pages.account.length} account pages`);
  for (const path of pages.account) await fits(t, p, path);
  await p.close();
});

t.test('every operator page fits a 360 px screen and a desktop, with long values', async (t) => {
  const p = await signedInTab(browser, h.url, world.operator, '/admin');
  const pages = pagesToCheck(world.params);
  t.ok(pages.operator.length >= 10, `${pages.operator.length} operator pages`);
  for (const path of pages.operator) await fits(t, p, path);
  await p.close();
});

t.test('the pages before signing in fit a 360 px screen and a desktop', async (t) => {
  await browser.context.clearCookies();
  const p = await browser.context.newPage();
  for (const path of pagesToCheck(world.params).public) {
    for (const size of [PHONE, DESKTOP]) {
      await p.setViewportSize(size);
      await p.goto(`${h.url}${path}`);
      const o = await overflowOf(p);
      t.ok(o.scrollWidth <= o.width, `${path} at ${size.width} px: no sideways scroll`);
      t.same(o.wider, [], `${path} at ${size.width} px: no element wider than the screen`);
    }
  }
  await p.close();
});
