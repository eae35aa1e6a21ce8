// Delivery to one destination domain: find its MX hosts, connect (opportunistic STARTTLS, EHLO with our
// public name), and send each recipient's copy with its own VERP return path over the one connection.
// Every result is a value; nothing here throws for a remote failure.
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { outcomeOf, replyFromError, type Outcome } from '../replies/classify.js';
import type { ReplyRules } from '../../shared/policies/smtp-replies.js';
import type { MxHost, MxResolver } from './mx.js';
import type { ConnectionCache } from './connection-cache.js';

export interface DeliveryJob {
  recipientId: number;
  email: string;
  returnPath: string;
  /** The signed message, asked for only once a connection is up: a dead destination costs no signing. */
  body: () => Promise<Buffer>;
}

export interface JobResult {
  recipientId: number;
  outcome: Outcome;
  mxHost: string | null;
  ip: string | null;
}

export interface DeliverOptions {
  mx: MxResolver;
  port: number;
  ehloName: string;
  localAddress?: string;
  connectTimeoutMs: number;
  socketTimeoutMs: number;
  /** Where connections wait between batches; without one, each batch has its own connection. */
  connections?: ConnectionCache;
  /** What each reply means (config/smtp-replies.json, loaded once). */
  replies: ReplyRules;
}

const cacheKey = (ip: string, o: DeliverOptions): string => `${ip}:${o.port}|${o.localAddress ?? ''}|${o.ehloName}`;

const allResults = (jobs: readonly DeliveryJob[], outcome: Outcome, mxHost: string | null = null, ip: string | null = null): JobResult[] =>
  jobs.map((j) => ({ recipientId: j.recipientId, outcome, mxHost, ip }));

function connect(host: MxHost, ip: string, o: DeliverOptions): Promise<SMTPConnection> {
  const conn = new SMTPConnection({
    host: ip,
    port: o.port,
    name: o.ehloName,
    localAddress: o.localAddress,
    opportunisticTLS: true,
    // Certificates of MX hosts are not checked without an MTA-STS or DANE policy (RFC 7435, opportunistic TLS).
    tls: { rejectUnauthorized: false, servername: host.exchange },
    connectionTimeout: o.connectTimeoutMs,
    greetingTimeout: o.connectTimeoutMs,
    socketTimeout: o.socketTimeoutMs,
  });
  return new Promise((resolve, reject) => {
    conn.once('error', reject);
    conn.connect((err) => {
      if (err) {
        conn.close();
        return reject(err);
      }
      conn.removeListener('error', reject);
      conn.on('error', () => undefined);
      resolve(conn);
    });
  });
}

async function sendOne(conn: SMTPConnection, job: DeliveryJob, rules: ReplyRules): Promise<{ outcome: Outcome; connectionLost: boolean }> {
  let body: Buffer;
  try {
    body = await job.body();
  } catch (err) {
    // Our own trouble (the body missing from the store, the key unusable): a deferral with our reason, tried again later.
    return { outcome: outcomeOf({ code: 451, text: `4.3.0 local problem preparing the message: ${(err as Error).message}` }, rules), connectionLost: false };
  }
  return new Promise((resolve) => {
    conn.send({ from: job.returnPath, to: [job.email] }, body, (err, info) => {
      if (!err && info?.accepted.length) return resolve({ outcome: outcomeOf(info.response, rules), connectionLost: false });
      const reply = replyFromError(err ?? info?.rejectedErrors?.[0]);
      resolve({ outcome: outcomeOf(reply, rules), connectionLost: conn.destroyed || reply.code === 0 });
    });
  });
}

function reset(conn: SMTPConnection): Promise<boolean> {
  return new Promise((resolve) => conn.reset((err) => resolve(!err)));
}

/** Sends every job over one connection; jobs left when the connection is lost are returned undone. */
async function sendAll(
  conn: SMTPConnection,
  jobs: readonly DeliveryJob[],
  host: MxHost,
  ip: string,
  rules: ReplyRules,
): Promise<{ done: JobResult[]; undone: DeliveryJob[] }> {
  const done: JobResult[] = [];
  for (const [i, job] of jobs.entries()) {
    const { outcome, connectionLost } = await sendOne(conn, job, rules);
    if (connectionLost && outcome.kind === 'deferred') return { done, undone: jobs.slice(i) };
    done.push({ recipientId: job.recipientId, outcome, mxHost: host.exchange, ip });
    if (outcome.kind !== 'delivered' && !(await reset(conn))) return { done, undone: jobs.slice(i + 1) };
  }
  return { done, undone: [] };
}

/**
 * Sends over a kept connection when there is one. One the server has meanwhile dropped fails before any
 * job is done: the batch then gets a fresh connection, as if none had been kept.
 */
async function sendOverKept(
  jobs: readonly DeliveryJob[],
  host: MxHost,
  ip: string,
  o: DeliverOptions,
): Promise<{ done: JobResult[]; undone: DeliveryJob[]; conn: SMTPConnection } | null> {
  const conn = o.connections?.take(cacheKey(ip, o));
  if (!conn) return null;
  const sent = await sendAll(conn, jobs, host, ip, o.replies);
  if (sent.done.length === 0 && sent.undone.length === jobs.length) {
    conn.close();
    return null;
  }
  return { ...sent, conn };
}

/** A connection that ended its batch cleanly waits for the next batch; any other is closed. */
function release(conn: SMTPConnection, undone: readonly DeliveryJob[], ip: string, o: DeliverOptions): void {
  if (o.connections && !undone.length && !conn.destroyed) o.connections.put(cacheKey(ip, o), conn);
  else conn.quit();
}

async function deliverToHosts(hosts: readonly MxHost[], jobs: readonly DeliveryJob[], o: DeliverOptions): Promise<JobResult[]> {
  const results: JobResult[] = [];
  let pending = [...jobs];
  let lastError: unknown = new Error('no MX host could be reached');
  for (const host of hosts) {
    for (const ip of host.addresses) {
      if (!pending.length) return results;
      let sent = await sendOverKept(pending, host, ip, o);
      if (!sent) {
        let conn: SMTPConnection;
        try {
          conn = await connect(host, ip, o);
        } catch (err) {
          lastError = err;
          const outcome = outcomeOf(replyFromError(err), o.replies);
          // A 5xx greeting is the host refusing us: a verdict for every recipient, not a reason to go on.
          if (outcome.kind === 'bounced') return [...results, ...allResults(pending, outcome, host.exchange, ip)];
          continue;
        }
        sent = { ...(await sendAll(conn, pending, host, ip, o.replies)), conn };
      }
      release(sent.conn, sent.undone, ip, o);
      results.push(...sent.done);
      pending = sent.undone;
    }
  }
  return [...results, ...allResults(pending, outcomeOf(replyFromError(lastError), o.replies))];
}

export async function deliverToDomain(domain: string, jobs: readonly DeliveryJob[], o: DeliverOptions): Promise<JobResult[]> {
  const route = await o.mx.route(domain);
  if (route.kind === 'null-mx') return allResults(jobs, outcomeOf({ code: 0, text: `null MX: ${domain} accepts no mail (RFC 7505)` }, o.replies));
  if (route.kind === 'no-route') {
    const text = route.temporary ? `DNS temporary failure for ${domain}: ${route.reason}` : `no MX and no A for ${domain}: ${route.reason}`;
    return allResults(jobs, outcomeOf({ code: 0, text }, o.replies));
  }
  return deliverToHosts(route.hosts, jobs, o);
}
