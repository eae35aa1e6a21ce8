// The sender rules are the core's, decided once (core/sending/sender-authorization.ts); SMTP and HTTP only
// translate each refusal. The table below is the contract: every refusal, its SMTP reply and its HTTP error.
import t, { type Test } from 'tap';
import { REFUSAL_KINDS, type RefusalKind, type SenderRefusal } from '../shared/core/sending/refusals.js';
import { smtpReplyFor } from '../mta/smtp/refusal-replies.js';
import { sendErrorFor } from '../api/http/send/refusal-errors.js';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { RawSmtp } from './helpers/smtp-raw.js';

interface Row {
  example: SenderRefusal;
  smtp: number;
  http: { status: number; field: string; code: string };
}

/** Keyed by kind, so a new refusal without a translation does not compile. */
const TABLE: Record<RefusalKind, Row> = {
  no_key: { example: { kind: 'no_key' }, smtp: 530, http: { status: 401, field: 'api_key', code: 'required' } },
  invalid_key: { example: { kind: 'invalid_key', detail: 'revoked' }, smtp: 535, http: { status: 403, field: 'api_key', code: 'invalid' } },
  admin_key_in_body: { example: { kind: 'admin_key_in_body' }, smtp: 535, http: { status: 403, field: 'api_key', code: 'invalid' } },
  insufficient_scope: {
    example: { kind: 'insufficient_scope', requiredScope: 'emails:send' },
    smtp: 535,
    http: { status: 403, field: 'api_key', code: 'insufficient_scope' },
  },
  team_out_of_reach: { example: { kind: 'team_out_of_reach' }, smtp: 535, http: { status: 404, field: 'account_id', code: 'not_found' } },
  team_suspended: { example: { kind: 'team_suspended' }, smtp: 550, http: { status: 403, field: 'account', code: 'suspended' } },
  domain_not_verified: {
    example: { kind: 'domain_not_verified', address: 'a@x.test', domain: 'x.test' },
    smtp: 550,
    http: { status: 422, field: 'from', code: 'domain_not_verified' },
  },
  domain_not_allowed: {
    example: { kind: 'domain_not_allowed', address: 'a@x.test', domain: 'x.test' },
    smtp: 550,
    http: { status: 422, field: 'from', code: 'domain_not_allowed' },
  },
  rate_limited: {
    example: { kind: 'rate_limited', limitPerSecond: 1, retryAfterS: 1 },
    smtp: 451,
    http: { status: 429, field: 'account', code: 'rate_limited' },
  },
  insufficient_balance: { example: { kind: 'insufficient_balance' }, smtp: 550, http: { status: 403, field: 'account', code: 'insufficient_balance' } },
};

t.test('every refusal has one SMTP reply and one HTTP error, as the table says', async (t) => {
  t.same(Object.keys(TABLE).sort(), [...REFUSAL_KINDS].sort(), 'the table covers every refusal kind');
  for (const kind of REFUSAL_KINDS) {
    const row = TABLE[kind];
    const smtp = smtpReplyFor(row.example);
    t.equal(smtp.code, row.smtp, `${kind}: SMTP ${row.smtp}`);
    t.match(smtp.text, row.smtp >= 500 ? /^5\.\d+\.\d+ / : /^4\.\d+\.\d+ /, `${kind}: the enhanced status agrees with the reply code`);
    const http = sendErrorFor(row.example);
    t.equal(http.status, row.http.status, `${kind}: HTTP ${row.http.status}`);
    t.ok(http.errors[row.http.field]?.[row.http.code], `${kind}: errors.${row.http.field}.${row.http.code}`);
  }
  t.equal(sendErrorFor(TABLE.insufficient_scope.example).errors.api_key?.required_scope, 'emails:send', 'a missing scope is named');
  t.equal(sendErrorFor(TABLE.rate_limited.example).headers['Retry-After'], '1', 'a rate refusal says when to retry');
});

/** A root account with a verified domain and a sending key for it; its own world of refusals. */
interface SendingAccount {
  id: number;
  adminKey: string;
  sendingKey: string;
  /** The first of its two verified domains (the one a limited key is limited to). */
  domain: string;
  otherDomain: string;
}

let seq = 0;
const uniqueDomain = () => `refusals-${process.pid}-${++seq}.com`;

async function sendingAccount(w: MailWorld, o: { credits?: number; keyLimitedTo?: 'first' } = {}): Promise<SendingAccount> {
  const h = w.h;
  const acct = await h.account({ credits: o.credits ?? 1000 });
  await h.rt.store.teams.update(acct.id, { limitPerSecond: 100_000 });
  const names = [uniqueDomain(), uniqueDomain()];
  const ids: string[] = [];
  for (const name of names) {
    const created = await h.request('POST', '/v2/domains', { key: acct.key, body: { name } });
    await h.rt.store.domains.recordCheck(created.body.data.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
    ids.push(created.body.data.id);
  }
  const body = o.keyLimitedTo ? { name: 'app', domain: ids[0] } : { name: 'app' };
  const key = await h.request('POST', '/v2/api-keys', { key: acct.key, body });
  return { id: acct.id, adminKey: acct.key, sendingKey: key.body.data.api_key, domain: names[0]!, otherDomain: names[1]! };
}

/** The reply code of the first command SMTP refused, or 250 when the message was queued. */
async function smtpCode(w: MailWorld, key: string | undefined, from: string): Promise<number> {
  const { smtp } = await RawSmtp.open(w.h.config.smtp.tlsPorts[0]!, true);
  try {
    await smtp.expect('EHLO client.test', 250);
    if (key !== undefined) {
      const auth = await smtp.command(`AUTH PLAIN ${Buffer.from(`\0user\0${key}`).toString('base64')}`);
      if (auth.code !== 235) return auth.code;
    }
    const mail = await smtp.command(`MAIL FROM:<${from}>`);
    if (mail.code !== 250) return mail.code;
    await smtp.expect('RCPT TO:<someone@dest.test>', 250);
    await smtp.expect('DATA', 354);
    await smtp.write(`From: <${from}>\r\nTo: <someone@dest.test>\r\nSubject: refusals\r\n\r\nhello\r\n.\r\n`);
    return (await smtp.next()).code;
  } finally {
    await smtp.quit().catch(() => undefined);
  }
}

async function httpSend(w: MailWorld, key: string | undefined, from: string, o: { inBody?: boolean; teamId?: number } = {}) {
  const mail = { from: { email: from }, to: [{ email: 'someone@dest.test' }], subject: 'refusals', text: 'hello' };
  return w.h.request('POST', '/v2/emails', {
    key: o.inBody ? undefined : key,
    body: o.inBody ? { ...mail, api_key: key } : mail,
    ...(o.teamId === undefined ? {} : { teamId: o.teamId }),
  });
}

t.test('SMTP submission and POST /v2/emails refuse the same senders, each in its own words', async (t) => {
  const w = await startMailWorld();
  t.teardown(() => w.close());

  const expectBoth = (t: Test, kind: RefusalKind, smtp: number | null, http: Awaited<ReturnType<typeof httpSend>> | null) => {
    const row = TABLE[kind];
    if (smtp !== null) t.equal(smtp, row.smtp, `SMTP answers ${row.smtp}`);
    if (http !== null) {
      t.equal(http.status, row.http.status, http.text);
      t.ok(http.body?.errors?.[row.http.field]?.[row.http.code], `HTTP errors.${row.http.field}.${row.http.code}`);
    }
  };

  await t.test('no key', async (t) => {
    const a = await sendingAccount(w);
    expectBoth(t, 'no_key', await smtpCode(w, undefined, `shop@${a.domain}`), await httpSend(w, undefined, `shop@${a.domain}`));
  });

  await t.test('an unknown key, and an admin key over SMTP', async (t) => {
    const a = await sendingAccount(w);
    const unknown = 'tern_doesnotexist0000000000000000000000000000';
    expectBoth(t, 'invalid_key', await smtpCode(w, unknown, `shop@${a.domain}`), await httpSend(w, unknown, `shop@${a.domain}`));
    expectBoth(t, 'invalid_key', await smtpCode(w, a.adminKey, `shop@${a.domain}`), null);
  });

  await t.test('an admin key in the body, without emails:send, or acting on a team out of reach (HTTP only)', async (t) => {
    const a = await sendingAccount(w);
    const b = await sendingAccount(w);
    expectBoth(t, 'admin_key_in_body', null, await httpSend(w, a.adminKey, `shop@${a.domain}`, { inBody: true }));
    const readOnly = await w.h.adminKey(a.id, ['domains:read']);
    expectBoth(t, 'insufficient_scope', null, await httpSend(w, readOnly, `shop@${a.domain}`));
    expectBoth(t, 'team_out_of_reach', null, await httpSend(w, a.adminKey, `shop@${a.domain}`, { teamId: b.id }));
  });

  await t.test('a suspended team', async (t) => {
    const a = await sendingAccount(w);
    await w.h.rt.store.teams.changeStatus(a.id, 'suspended', 'platform');
    expectBoth(t, 'team_suspended', await smtpCode(w, a.sendingKey, `shop@${a.domain}`), await httpSend(w, a.sendingKey, `shop@${a.domain}`));
  });

  await t.test('a From domain the team has not verified, and one the key may not use', async (t) => {
    const a = await sendingAccount(w, { keyLimitedTo: 'first' });
    const b = await sendingAccount(w);
    const foreign = `shop@${b.domain}`;
    expectBoth(t, 'domain_not_verified', await smtpCode(w, a.sendingKey, foreign), await httpSend(w, a.sendingKey, foreign));
    const second = `shop@${a.otherDomain}`;
    expectBoth(t, 'domain_not_allowed', await smtpCode(w, a.sendingKey, second), await httpSend(w, a.sendingKey, second));
  });

  await t.test('the sending rate used up', async (t) => {
    const a = await sendingAccount(w);
    await w.h.rt.store.teams.update(a.id, { limitPerSecond: 1 });
    const from = `shop@${a.domain}`;
    // Several at once: one takes the second's only place, the others are refused, on both interfaces.
    const [smtp, http] = await Promise.all([
      Promise.all([1, 2, 3].map(() => smtpCode(w, a.sendingKey, from))),
      Promise.all([1, 2, 3].map(() => httpSend(w, a.sendingKey, from))),
    ]);
    const refusedSmtp = smtp.filter((code) => code !== 250);
    const refusedHttp = http.filter((res) => res.status !== 200);
    t.ok(refusedSmtp.length + refusedHttp.length >= 5, 'at most one of six went through');
    for (const code of refusedSmtp) expectBoth(t, 'rate_limited', code, null);
    for (const res of refusedHttp) expectBoth(t, 'rate_limited', null, res);
  });

  await t.test('credits that do not cover the message', async (t) => {
    const a = await sendingAccount(w, { credits: 0 });
    expectBoth(t, 'insufficient_balance', await smtpCode(w, a.sendingKey, `shop@${a.domain}`), await httpSend(w, a.sendingKey, `shop@${a.domain}`));
  });
});
