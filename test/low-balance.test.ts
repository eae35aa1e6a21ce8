// The low-balance mail over a running Tern (API sweeping every second, the MTA delivering to a loopback sink):
// an account's owners are mailed once when its balance falls below the threshold, not again while it stays
// below, again after it rose above and fell once more; an account that never was above it is never mailed. With the email turned off by an operator, a fall mails nobody.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { editEmail, resetEmail } from './helpers/email-templates.js';
import { logIn, operatorOn } from './helpers/dashboard-session.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import type { Store } from '../shared/store/index.js';

const w = await startMailWorld({
  overrides: {
    systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 },
    billing: { provider: 'offline', lowBalanceThreshold: 100, lowBalanceCheckS: 1 },
  },
});
t.teardown(() => w.close());
const h = w.h;
const log = createLogger('test', 'silent');

async function accountWithOwner(credits: number, name: string): Promise<{ id: number; owner: string }> {
  const { id } = await h.account({ credits, name });
  const owner = `owner-${name}-${process.pid}@dest.test`;
  const made = await createIdentity(h.rt).users.create(id, { email: owner, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  return { id, owner };
}

const change = (store: Store, payerId: number, amount: number) =>
  store.credits.post({ payerId, kind: amount > 0 ? 'grant' : 'adjustment', amount, actor: { kind: 'cli', id: null }, reference: null, reason: 'test' });

const sweeps = (n: number) => new Promise((resolve) => setTimeout(resolve, n * 1000 + 500));

t.test('an owner is mailed once per fall below the threshold', async (t) => {
  const { id, owner } = await accountWithOwner(150, 'falling');
  const never = await accountWithOwner(50, 'never-above');
  await sweeps(2); // armed: at or above the threshold
  await change(h.rt.store, id, -60);
  const first = await mailTo(w.sink, owner, 1);
  t.match(first.parsed.subject, 'Low credit balance: 90 left');
  t.match(first.parsed.text, /your account falling are running low: 90 left \(the alert threshold is 100\)/);
  await change(h.rt.store, id, -10);
  await sweeps(3);
  t.equal(countTo(w.sink, owner), 1, 'not again while it stays below');
  await change(h.rt.store, id, 100);
  await sweeps(2);
  await change(h.rt.store, id, -100);
  const second = await mailTo(w.sink, owner, 2);
  t.match(second.parsed.subject, 'Low credit balance: 80 left');
  t.equal(countTo(w.sink, never.owner), 0, 'an account created below the threshold never crossed it');
});

t.test('with the low-credit email turned off, a fall below the threshold mails nobody', async (t) => {
  const operator = await logIn(h, await operatorOn(h));
  await editEmail(h, operator, 'low_balance', { subject: 'Low', body: '<p>{{credits.balance}}</p>', status: 'disabled' });
  t.teardown(() => resetEmail(h, operator, 'low_balance'));
  const { id, owner } = await accountWithOwner(150, 'muted');
  await sweeps(2);
  await change(h.rt.store, id, -60);
  await sweeps(3);
  t.equal(countTo(w.sink, owner), 0);
});
