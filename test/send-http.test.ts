import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';

async function verifiedDomain(h: Harness, accountId: number, name: string): Promise<string> {
  const team = (await h.rt.store.accounts.get(accountId))!;
  const { generateDkimKeyPair } = await import('../shared/dns-records.js');
  const keys = await generateDkimKeyPair(1024);
  const d = await h.rt.store.domains.create({ accountId: team.id, name, dkimSelector: 'tern', dkimPublicKey: keys.publicKey, dkimPrivateKeyEnc: h.rt.secrets.seal(keys.privateKeyPem) });
  if (d === 'exists') throw new Error('exists');
  await h.rt.store.domains.recordCheck(d.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  return d.id;
}

t.test('a sending key sends over HTTP and the message is queued durably', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const acct = await h.account({ credits: 10 });
  await verifiedDomain(h, acct.id, 'example.com');
  const key = await h.request('POST', '/v2/api-keys', { key: acct.key, body: { name: 'app' } });
  const res = await h.request('POST', '/v2/emails', {
    key: key.body.data.api_key,
    body: { from: { email: 'hi@example.com', name: 'Hi' }, to: [{ email: 'bob@dest.test' }], subject: 'Hello', html: '<p>Hello <b>Bob</b></p>' },
  });
  t.equal(res.status, 200, res.text);
  t.match(res.body.message_id, /^[0-9a-z]+$/);
  const row = await h.rt.store.messages.get(res.body.message_id);
  t.equal(row?.status, 'pending');
});
