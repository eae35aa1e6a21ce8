// Sending over HTTP: POST /v2/emails and the batch, accepted, logged and delivered.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';

async function verifiedDomain(h: Harness, teamId: number, name: string): Promise<string> {
  const team = (await h.rt.store.teams.get(teamId))!;
  const { generateDkimKeyPair } = await import('../shared/dns-records.js');
  const keys = await generateDkimKeyPair(1024);
  const d = await h.rt.store.domains.create({
    teamId: team.id,
    name,
    dkimSelector: 'tern',
    dkimPublicKey: keys.publicKey,
    dkimPrivateKeyEnc: h.rt.secrets.seal(keys.privateKeyPem),
  });
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

t.test('the message log lists, filters, searches and details sent messages', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const acct = await h.account({ credits: 100 });
  const domainId = await verifiedDomain(h, acct.id, 'example.com');
  const send = (subject: string, to: string) =>
    h.request('POST', '/v2/emails', { key: acct.key, body: { from: { email: 'a@example.com' }, to: [{ email: to, name: 'Zed' }], subject, text: 'x' } });
  const first = await send('Invoice 42 ready', 'alice@dest.test');
  await send('Welcome aboard', 'bob@dest.test');
  t.equal(first.status, 200, first.text);
  const all = await h.request('GET', '/v2/emails', { key: acct.key });
  t.equal(all.body.total, 2);
  t.same(
    Object.keys(all.body.data[0]).sort(),
    ['created_at', 'error', 'from', 'from_name', 'has_attachments', 'id', 'recipients_count', 'reply_to', 'sent_at', 'status', 'subject', 'to'].sort(),
  );
  const bySubject = await h.request('GET', '/v2/emails?search=invoice', { key: acct.key });
  t.same(
    bySubject.body.data.map((m: { subject: string }) => m.subject),
    ['Invoice 42 ready'],
  );
  t.equal((await h.request('GET', '/v2/emails?search=invo', { key: acct.key })).body.total, 0, 'words match whole');
  const byPrefix = await h.request('GET', `/v2/emails?search=${encodeURIComponent('invo*')}`, { key: acct.key });
  t.same(
    byPrefix.body.data.map((m: { subject: string }) => m.subject),
    ['Invoice 42 ready'],
    'a trailing * matches the start of a word',
  );
  t.equal((await h.request('GET', '/v2/emails?from=%2B010000-01-01', { key: acct.key })).body.total, 0, 'a bound past year 9999 is the end of time');
  const byRecipient = await h.request('GET', '/v2/emails?search=bob@dest', { key: acct.key });
  t.same(
    byRecipient.body.data.map((m: { subject: string }) => m.subject),
    ['Welcome aboard'],
  );
  t.equal((await h.request('GET', `/v2/emails?domain=${domainId}`, { key: acct.key })).body.total, 2);
  t.equal((await h.request('GET', '/v2/emails?domain=example.com&status=pending', { key: acct.key })).body.total, 2);
  t.equal((await h.request('GET', '/v2/emails?status=sent', { key: acct.key })).body.total, 0);
  t.equal((await h.request('GET', '/v2/emails?from=2999-01-01', { key: acct.key })).body.total, 0);
  t.equal((await h.request('GET', '/v2/emails?from=nonsense', { key: acct.key })).status, 422);
  const detail = await h.request('GET', `/v2/emails/${first.body.message_id}`, { key: acct.key });
  t.equal(detail.status, 200);
  t.equal(detail.body.data.sending_key_id, null, 'an admin-key send has no sending-key id');
  t.equal(detail.body.data.recipients[0].state, 'queued');
  t.equal((await h.request('GET', '/v2/emails/nope', { key: acct.key })).status, 404);
});
