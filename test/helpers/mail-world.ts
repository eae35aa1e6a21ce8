// A whole sending world on loopback: DNS server, MX sink, Redis, SQLite, the API and the MTA in-process,
// an account with a verified domain and a sending key. Mail to *@dest.test goes to the sink.
import { startHarness, type Harness } from './harness.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { startSink, type Sink } from './sink.js';
import { startMta, type RunningMta } from '../../mta/main.js';
import { loadDeliveryRules } from '../../shared/policies/index.js';
import { dkimTxt } from '../../shared/dns-records.js';
import { createResolver } from '../../shared/dns.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { until } from './wait.js';

export interface MailWorld {
  h: Harness;
  dns: TestDnsServer;
  sink: Sink;
  mta: RunningMta;
  /** The account (the paying team), which holds the admin key. */
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
  /** Process environment while the MTA starts (its retry policy is read from there, as in production). */
  mtaEnv?: Record<string, string>;
  /** Put the domain on a child team (to test platform suspension and X-Account-Id). */
  childTeam?: boolean;
  domain?: string;
}

/** Runs `start` with `env` set in process.env, then puts the environment back. */
export async function withProcessEnv<T>(env: Record<string, string>, start: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await start();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Starts the world; when a step fails, what was already started is closed before the error goes on. */
export async function startMailWorld(o: MailWorldOptions = {}): Promise<MailWorld> {
  const started: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const close of started.reverse()) await close().catch(() => undefined);
  };
  try {
    const dns = await startDnsServer();
    started.push(() => dns.close());
    const sink = await startSink();
    started.push(() => sink.close());
    const env = { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_REMOTE_SMTP_PORT: String(sink.port), TERNMAIL_VERIFY_INTERVAL_S: '3600', ...o.env };
    const h = await startHarness({ env, overrides: o.overrides });
    started.push(() => h.close());
    const mta = await withProcessEnv(o.mtaEnv ?? {}, () => startMta({ config: h.config, ...loadDeliveryRules() }, h.rt));
    started.push(() => mta.close());
    return { h, dns, sink, mta, ...(await populate(h, dns, o)), close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** MX records for dest.test, an account with a verified domain (DKIM published) and a sending key. */
async function populate(h: Harness, dns: TestDnsServer, o: MailWorldOptions) {
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  const acct = await h.account({ credits: 10_000 });
  await h.rt.store.teams.update(acct.id, { limitPerSecond: 100_000 });
  const teamId = o.childTeam ? (await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key: acct.key, body: { name: 'Client' } })).body.data.id : acct.id;
  const domain = o.domain ?? 'example.com';
  const created = await h.request<{ data: { id: string } }>('POST', '/v2/domains', { key: acct.key, teamId, body: { name: domain } });
  const row = (await h.rt.store.domains.get(created.body.data.id))!;
  dns.set(`tern._domainkey.${domain}`, [{ type: 'TXT', data: dkimTxt(row.dkimPublicKey) }]);
  await h.rt.store.domains.recordCheck(row.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const key = await h.request<{ data: { api_key: string } }>('POST', '/v2/api-keys', { key: acct.key, teamId, body: { name: 'app' } });
  return { teamId, domain, accountId: acct.id, adminKey: acct.key, sendingKey: key.body.data.api_key };
}

/** Waits until a message is no longer pending, and returns its status. */
export async function settled(w: MailWorld, messageId: string, timeoutMs = 10_000): Promise<string> {
  return until(
    `message ${messageId} to settle`,
    async () => {
      const row = await w.h.rt.store.messages.get(messageId);
      return row && row.status !== 'pending' ? row.status : null;
    },
    timeoutMs,
  );
}

/** An independent DKIM verdict (mailauth) on a delivered copy, with keys read from the world's DNS server. */
export async function dkimVerdict(w: MailWorld, raw: Buffer): Promise<{ result: string; signedHeaders: string }> {
  const resolver = createResolver([w.dns.address]);
  const verdict = await dkimVerify(raw, { resolver: async (name: string, type: string) => (type === 'TXT' ? resolver.resolveTxt(name) : []) });
  const first = verdict.results[0] as { status?: { result?: string }; signingHeaders?: { keys?: string } } | undefined;
  return { result: first?.status?.result ?? 'none', signedHeaders: first?.signingHeaders?.keys ?? '' };
}
