import t from 'tap';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { startMailWorld } from './helpers/mail-world.js';

const world = (overrides: Record<string, unknown> = {}) => startMailWorld({ overrides });

t.test('a message sent over HTTP reaches the MX sink DKIM-signed with a VERP return path', async (t) => {
  const w = await world();
  t.teardown(() => w.close());
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: {
      from: { email: 'news@example.com', name: 'News' },
      to: [{ email: 'bob@dest.test', name: 'Bob' }],
      subject: 'Hello there',
      html: '<p>Hi <b>Bob</b></p>',
      headers: { 'List-Unsubscribe': '<https://example.com/u/1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    },
  });
  t.equal(res.status, 200, res.text);
  const [got] = await w.sink.waitFor(1);
  t.match(got!.from, /^bounces\+[0-9a-z]+-[0-9a-f]+@send\.example\.com$/);
  t.same(got!.to, ['bob@dest.test']);
  t.equal(got!.heloName, 'mx.tern.test');
  const parsed = await simpleParser(got!.raw);
  t.equal(parsed.subject, 'Hello there');
  t.match(parsed.text ?? '', /Hi BOB|Hi Bob/);
  t.match(got!.raw.toString('latin1'), /\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/);
  t.match(got!.raw.toString('latin1'), /\r\nList-Unsubscribe: <https:\/\/example\.com\/u\/1>\r\n/);
  const result = await dkimVerify(got!.raw, {
    resolver: async (name: string, type: string) => {
      const { createResolver } = await import('../shared/dns.js');
      const r = createResolver([w.dns.address]);
      return type === 'TXT' ? r.resolveTxt(name) : [];
    },
  });
  t.equal(result.results[0]?.status.result, 'pass', JSON.stringify(result.results[0]?.status));
  t.match((result.results[0] as { signingHeaders?: { keys?: string } } | undefined)?.signingHeaders?.keys ?? '', /List-Unsubscribe/i);
  const deadline = Date.now() + 5000;
  let row = await w.h.rt.store.messages.get(res.body.message_id);
  while (row?.status === 'pending' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    row = await w.h.rt.store.messages.get(res.body.message_id);
  }
  t.equal(row?.status, 'sent');
  const scraped = await (await fetch(`${w.h.url}/metrics`)).text();
  t.match(scraped, /tern_recipient_outcomes_total\{outcome="sent"\} [1-9]/, 'delivery outcomes are counted');
  t.match(scraped, /tern_queue_recipients\{state="sent"\} [1-9]/, 'queue depth by state is measured');
  t.match(scraped, /tern_http_requests_total\{method="POST",route="\/v2\/emails",status="200"\} [1-9]/, 'HTTP requests are counted by route');
  t.match(scraped, /tern_messages_accepted_total\{source="http"\} [1-9]/);
});

t.test('the team\'s region picks the sending pool: its source address and EHLO name', async (t) => {
  const w = await world({ delivery: { pools: { eu: { localAddress: '127.0.0.2', ehloName: 'eu-out.tern.test' }, us: { localAddress: null, ehloName: null } } } });
  t.teardown(() => w.close());
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: 'news@example.com' }, to: [{ email: 'eve@dest.test' }], subject: 'Pool', text: 'x' },
  });
  t.equal(res.status, 200, res.text);
  const [got] = await w.sink.waitFor(1);
  t.equal(got!.heloName, 'eu-out.tern.test');
  t.match(got!.remoteAddress, /127\.0\.0\.2$/);
});
