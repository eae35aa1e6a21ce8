// A whole sending world on loopback: DNS server, MX sink, Redis, SQLite, the API and the MTA in-process,
// an account with a verified domain and a sending key. Mail to *@dest.test goes to the sink.
import { startHarness, type Harness } from './harness.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { startSink, type Sink } from './sink.js';
import { startMta, type RunningMta } from '../../mta/main.js';
import { dkimTxt } from '../../shared/dns-records.js';

export interface MailWorld {
  h: Harness;
  dns: TestDnsServer;
  sink: Sink;
  mta: RunningMta;
  accountId: number;
  adminKey: string;
  sendingKey: string;
  /** The team the domain belongs to: the account itself, or its child team when asked for. */
  teamId: number;
  domain: string;
  close(): Promise<void>;
}

export interface MailWorldOptions {
  overrides?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Put the domain on a child team (to test platform suspension and X-Account-Id). */
  childTeam?: boolean;
  domain?: string;
}

export async function startMailWorld(o: MailWorldOptions = {}): Promise<MailWorld> {
  const dns = await startDnsServer();
  const sink = await startSink();
  const env = { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_REMOTE_SMTP_PORT: String(sink.port), TERNMAIL_VERIFY_INTERVAL_S: '3600', ...o.env };
  const h = await startHarness({ env, overrides: o.overrides });
  const mta = await startMta(h.config, h.rt);
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  const acct = await h.account({ credits: 1000 });
  await h.rt.store.accounts.update(acct.id, { limitPerSecond: 1000 });
  const teamId = o.childTeam ? ((await h.request('POST', '/v2/teams', { key: acct.key, body: { name: 'Client' } })).body.data.id as number) : acct.id;
  const domain = o.domain ?? 'example.com';
  const created = await h.request('POST', '/v2/domains', { key: acct.key, accountId: teamId, body: { name: domain } });
  const row = (await h.rt.store.domains.get(created.body.data.id))!;
  dns.set(`tern._domainkey.${domain}`, [{ type: 'TXT', data: dkimTxt(row.dkimPublicKey) }]);
  await h.rt.store.domains.recordCheck(row.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const key = await h.request('POST', '/v2/api-keys', { key: acct.key, accountId: teamId, body: { name: 'app' } });
  return {
    h, dns, sink, mta, teamId, domain,
    accountId: acct.id,
    adminKey: acct.key,
    sendingKey: key.body.data.api_key,
    async close() {
      await mta.close();
      await h.close();
      await sink.close();
      await dns.close();
    },
  };
}

/** Waits until a message is no longer pending, and returns its status. */
export async function settled(w: MailWorld, messageId: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await w.h.rt.store.messages.get(messageId);
    if (row && row.status !== 'pending') return row.status;
    if (Date.now() > deadline) throw new Error(`message ${messageId} still pending`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
