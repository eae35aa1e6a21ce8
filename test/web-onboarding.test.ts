// Issue 22 item 14: a new account's Overview shows its first steps (add a domain, publish the records, create a
// key, send a first message), each ticked as the core finds it done, instead of saying "Every domain is
// verified." of no domain; and the Keys page shows the SMTP settings a sending key is used with (the public host
// name, the STARTTLS and TLS ports of the configuration, the key as the password), to copy.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { userOn } from './helpers/dashboard-session.js';
import { page, signInOverHttp } from './helpers/web-pages.js';
import { sendingKeyOf, storedDomain } from './helpers/sending-setup.js';
import { newMessage, recordMessage } from './helpers/new-message.js';

let h: Harness;
t.before(async () => {
  h = await startHarness({ env: { TERNMAIL_SMTP_STARTTLS_PORTS: '2587,3587', TERNMAIL_SMTP_TLS_PORTS: '2465' } });
});
t.teardown(() => h?.close());

/** Each first step on the Overview as `step:done` or `step:todo`, in order. */
async function stepsShown(cookie: string): Promise<string[]> {
  const shown = await page(h, 'GET', '/', { cookie });
  return [...shown.text.matchAll(/<li data-step="([a-z_]+)" class="(done|todo)"/g)].map((m) => `${m[1]}:${m[2]}`);
}

t.test('a new account’s Overview lists its first steps, none done, and does not call its no domains verified', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const shown = await page(h, 'GET', '/', { cookie });
  t.notMatch(shown.text, /Every domain is verified/);
  t.match(shown.text, /Get started/);
  t.same(await stepsShown(cookie), ['add_domain:todo', 'publish_records:todo', 'create_key:todo', 'send_message:todo']);
  t.match(shown.text, /<li data-step="add_domain" class="todo">.{0,200}href="\/domains"/s, 'the first step links to where it is done');
});

t.test('each first step is ticked once done, and the checklist goes once all are', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const draft = await storedDomain(h, account.id, `first-${process.pid}.example`, true);
  t.same(await stepsShown(cookie), ['add_domain:done', 'publish_records:todo', 'create_key:todo', 'send_message:todo'], 'a domain added');
  await h.rt.store.domains.recordCheck(draft.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  t.same(await stepsShown(cookie), ['add_domain:done', 'publish_records:done', 'create_key:todo', 'send_message:todo'], 'its records found');
  await sendingKeyOf(h, account.key);
  t.same(await stepsShown(cookie), ['add_domain:done', 'publish_records:done', 'create_key:done', 'send_message:todo'], 'a key created');
  const recipient = { email: 'to@dest.test', name: '', kind: 'to' as const, domain: 'dest.test', state: 'queued' as const, reason: '' };
  await recordMessage(h.rt.store, newMessage({ id: `first-${process.pid}`, teamId: account.id, domainId: draft.id, recipients: [recipient], cost: 0 }));
  t.same(await stepsShown(cookie), [], 'a message sent: nothing left to do, no checklist');
  t.notMatch((await page(h, 'GET', '/', { cookie })).text, /Get started/);
});

t.test('a team whose one verified domain is its 1,001st has its records step done', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  // Drafts without real keys (nothing here signs with them): a key pair each would take most of a minute.
  const filler = (i: number) => ({
    teamId: account.id,
    name: `d${i}-${process.pid}.many.example`,
    dkimSelector: 'tern',
    dkimPublicKey: 'pub',
    dkimPrivateKeyEnc: 'sealed',
  });
  for (let i = 0; i < 1000; i++) await h.rt.store.domains.create(filler(i));
  const last = await storedDomain(h, account.id, `last-${process.pid}.many.example`, true);
  await h.rt.store.domains.recordCheck(last.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  t.same((await stepsShown(cookie)).slice(0, 2), ['add_domain:done', 'publish_records:done']);
});

t.test('the Keys page shows the SMTP settings to copy: the public host name, the ports and TLS modes of the configuration', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'viewer'));
  const shown = await page(h, 'GET', '/keys', { cookie });
  t.equal(shown.status, 200);
  const smtp = shown.text.slice(shown.text.indexOf('id="smtp-settings"'));
  t.match(smtp, /<code id="smtp-host">mx\.tern\.test<\/code>/, 'the host: the public host name');
  t.match(smtp, /2587, 3587.{0,80}STARTTLS/s, 'the STARTTLS ports');
  t.match(smtp, /2465.{0,80}TLS from the start/s, 'the implicit TLS port');
  t.match(smtp, /Password.{0,200}sending key/s, 'the key as the password');
  t.match(smtp, /Username/);
});
