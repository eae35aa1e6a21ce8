// Site health: Tern's own checks, answered in WordPress's shape (wp-site-health/v1 and the operator's page
// /admin/site-health). Each check looks at one part (Tern's own sender, the public host name, the listeners' TLS
// certificate, the DNS resolver, the store and Redis, the queue, the data dir's disk, backups) and says what it
// found as one variant of a closed union (SiteHealthFinding); assess() alone turns a finding into a status, a label,
// a description and actions, with the thresholds of config.siteHealth. Checks only read; each is bounded in time.
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, statfs } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config.js';
import { selfSignedTlsDir, tlsPairIn } from '../data-dir.js';
import { orEmpty } from '../dns.js';
import { IN_FLIGHT } from '../domain/queue-state.js';
import type { Queue } from '../queue/queue.js';
import type { Store } from '../store/index.js';
import type { Health } from './health.js';
import type { SystemMail, SystemSenderSource } from './system-mail.js';

/** The checks, by the name their route takes (`/wp-site-health/v1/tests/<name>`), in the order they are shown. */
export const SITE_HEALTH_TESTS = ['system-sender', 'public-hostname', 'tls-certificate', 'dns-resolver', 'store-and-redis', 'queue', 'disk-space', 'backups'] as const;
export type SiteHealthTest = (typeof SITE_HEALTH_TESTS)[number];

/** WordPress's three statuses: all is well, something to improve, something broken now. */
export type SiteHealthStatus = 'good' | 'recommended' | 'critical';

/** The badge's label: what a check is about, as WordPress groups its own (Security, Performance). */
export type SiteHealthCategory = 'Email' | 'Security' | 'Performance' | 'Reliability';

/** What each check found; every outcome a check can have is one variant here. */
export type SiteHealthFinding =
  | { test: 'system-sender'; kind: 'sending'; address: string; source: SystemSenderSource }
  | { test: 'system-sender'; kind: 'none' }
  | { test: 'system-sender'; kind: 'unusable'; problem: string }
  | { test: 'public-hostname'; kind: 'unset'; machineName: string }
  | { test: 'public-hostname'; kind: 'unusable'; problem: string }
  | { test: 'public-hostname'; kind: 'unresolved'; host: string }
  | { test: 'public-hostname'; kind: 'lookup_failed'; host: string; error: string }
  | { test: 'public-hostname'; kind: 'elsewhere'; host: string; addresses: string[] }
  | { test: 'public-hostname'; kind: 'here'; host: string; addresses: string[] }
  | { test: 'tls-certificate'; kind: 'none_yet' }
  | { test: 'tls-certificate'; kind: 'unreadable'; path: string; reason: string }
  | { test: 'tls-certificate'; kind: 'not_yet_valid'; validFrom: string }
  | { test: 'tls-certificate'; kind: 'expired'; validTo: string }
  | { test: 'tls-certificate'; kind: 'expiring'; validTo: string; days: number }
  | { test: 'tls-certificate'; kind: 'valid'; validTo: string; selfSigned: boolean; host: string; coversHost: boolean }
  | { test: 'dns-resolver'; kind: 'answering'; servers: string[] }
  | { test: 'dns-resolver'; kind: 'failing'; servers: string[]; error: string }
  | { test: 'store-and-redis'; kind: 'ready' }
  | { test: 'store-and-redis'; kind: 'failing'; parts: string[] }
  | { test: 'queue'; kind: 'measured'; backlog: number; held: number; oldestAgeS: number | null }
  | { test: 'disk-space'; kind: 'measured'; dataDir: string; freeBytes: number; totalBytes: number }
  | { test: 'disk-space'; kind: 'unreadable'; dataDir: string; reason: string }
  | { test: 'backups'; kind: 'on_postgres' }
  | { test: 'backups'; kind: 'none' }
  | { test: 'backups'; kind: 'taken'; takenAt: string; ageHours: number; file: string };

/** A link an operator follows to act on a finding. */
export interface SiteHealthAction {
  label: string;
  href: string;
}

/** One check's result as both interfaces show it; `description` is paragraphs of plain text. */
export interface SiteHealthResult {
  test: SiteHealthTest;
  status: SiteHealthStatus;
  category: SiteHealthCategory;
  label: string;
  description: string[];
  actions: SiteHealthAction[];
}

export type SiteHealthPolicy = Config['siteHealth'];

export interface SiteHealthDeps {
  config: Config;
  store: Store;
  queue: Pick<Queue, 'depth' | 'listQueued'>;
  systemMail: Pick<SystemMail, 'setup'>;
  health: Pick<Health, 'readiness'>;
  /** The resolver the product's lookups use, with a probe's short time limit. */
  resolver: Resolver;
  now?: () => number;
  /** This machine's addresses (every interface's); the public host name should resolve to one of them. */
  localAddresses?: () => string[];
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const machineAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .flatMap((i) => (i ? [i.address] : []));

/** The certificate the MTA's listeners serve: the configured one, else the self-signed one made on first start. */
function servedCertificate(config: Config): { path: string; selfSignedHere: boolean } | null {
  if (config.tls.cert) return { path: config.tls.cert, selfSignedHere: false };
  const path = tlsPairIn(selfSignedTlsDir(config.dataDir)).cert;
  return existsSync(path) ? { path, selfSignedHere: true } : null;
}

/** A lookup's error code (ETIMEOUT, ESERVFAIL, ECONNREFUSED…) or message. */
const errorText = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

export class SiteHealth {
  constructor(private readonly d: SiteHealthDeps) {}

  private now(): number {
    return (this.d.now ?? Date.now)();
  }

  /** One check, run now. */
  async run(test: SiteHealthTest): Promise<SiteHealthResult> {
    return assess(await this.find(test), this.d.config.siteHealth);
  }

  /** Every check, run together, in SITE_HEALTH_TESTS's order. */
  runAll(): Promise<SiteHealthResult[]> {
    return Promise.all(SITE_HEALTH_TESTS.map((test) => this.run(test)));
  }

  private find(test: SiteHealthTest): Promise<SiteHealthFinding> {
    switch (test) {
      case 'system-sender':
        return this.systemSender();
      case 'public-hostname':
        return this.publicHostname();
      case 'tls-certificate':
        return this.tlsCertificate();
      case 'dns-resolver':
        return this.dnsResolver();
      case 'store-and-redis':
        return this.storeAndRedis();
      case 'queue':
        return this.queue();
      case 'disk-space':
        return this.diskSpace();
      case 'backups':
        return this.backups();
    }
  }

  private async systemSender(): Promise<SiteHealthFinding> {
    const setup = await this.d.systemMail.setup();
    if (setup.problem === null && setup.current) return { test: 'system-sender', kind: 'sending', address: setup.current.address, source: setup.current.source };
    if (setup.current === null) return { test: 'system-sender', kind: 'none' };
    return { test: 'system-sender', kind: 'unusable', problem: setup.problem ?? '' };
  }

  /** Set (not the machine's own name by default), a name the world can look up, resolving to this machine. */
  private async publicHostname(): Promise<SiteHealthFinding> {
    const { publicHostname: host, publicHostnameProblem: problem, publicHostnameSet } = this.d.config;
    if (!publicHostnameSet) return { test: 'public-hostname', kind: 'unset', machineName: host };
    if (problem !== null) return { test: 'public-hostname', kind: 'unusable', problem };
    let addresses: string[];
    try {
      addresses = [...(await orEmpty(this.d.resolver.resolve4(host))), ...(await orEmpty(this.d.resolver.resolve6(host)))];
    } catch (err) {
      return { test: 'public-hostname', kind: 'lookup_failed', host, error: errorText(err) };
    }
    if (addresses.length === 0) return { test: 'public-hostname', kind: 'unresolved', host };
    const local = new Set((this.d.localAddresses ?? machineAddresses)());
    return { test: 'public-hostname', kind: addresses.some((a) => local.has(a)) ? 'here' : 'elsewhere', host, addresses };
  }

  private async tlsCertificate(): Promise<SiteHealthFinding> {
    const served = servedCertificate(this.d.config);
    if (!served) return { test: 'tls-certificate', kind: 'none_yet' };
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(await readFile(served.path));
    } catch (err) {
      return { test: 'tls-certificate', kind: 'unreadable', path: served.path, reason: (err as Error).message };
    }
    const now = this.now();
    const validFrom = new Date(cert.validFrom);
    const validTo = new Date(cert.validTo);
    if (validFrom.getTime() > now) return { test: 'tls-certificate', kind: 'not_yet_valid', validFrom: validFrom.toISOString() };
    if (validTo.getTime() <= now) return { test: 'tls-certificate', kind: 'expired', validTo: validTo.toISOString() };
    const days = Math.floor((validTo.getTime() - now) / DAY_MS);
    if (days < this.d.config.siteHealth.tlsExpiryDays) return { test: 'tls-certificate', kind: 'expiring', validTo: validTo.toISOString(), days };
    const host = this.d.config.publicHostname;
    // A certificate that signs itself (its issuer is its subject): clients that verify refuse it.
    const selfSigned = served.selfSignedHere || cert.checkIssued(cert);
    return { test: 'tls-certificate', kind: 'valid', validTo: validTo.toISOString(), selfSigned, host, coversHost: cert.checkHost(host) !== undefined };
  }

  /** The resolver answers when it gives any answer for the public host name, "no such name" included. */
  private async dnsResolver(): Promise<SiteHealthFinding> {
    const servers = this.d.resolver.getServers();
    try {
      await orEmpty(this.d.resolver.resolve4(this.d.config.publicHostname));
      return { test: 'dns-resolver', kind: 'answering', servers };
    } catch (err) {
      return { test: 'dns-resolver', kind: 'failing', servers, error: errorText(err) };
    }
  }

  private async storeAndRedis(): Promise<SiteHealthFinding> {
    const readiness = await this.d.health.readiness();
    return readiness.ready ? { test: 'store-and-redis', kind: 'ready' } : { test: 'store-and-redis', kind: 'failing', parts: readiness.failing };
  }

  /** Recipients in flight (held ones wait for an operator, not for delivery) and how long the oldest has waited. */
  private async queue(): Promise<SiteHealthFinding> {
    const [depth, [oldest]] = await Promise.all([this.d.queue.depth(), this.d.queue.listQueued({ states: IN_FLIGHT }, 1)]);
    const backlog = IN_FLIGHT.reduce((sum, state) => sum + (depth[state] ?? 0), 0);
    const oldestAgeS = oldest ? Math.max(0, Math.floor((this.now() - oldest.queuedAt) / 1000)) : null;
    return { test: 'queue', kind: 'measured', backlog, held: depth.held ?? 0, oldestAgeS };
  }

  private async diskSpace(): Promise<SiteHealthFinding> {
    const dataDir = this.d.config.dataDir;
    try {
      const s = await statfs(dataDir);
      // bavail: the blocks an unprivileged process (Tern's user) may still write.
      return { test: 'disk-space', kind: 'measured', dataDir, freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    } catch (err) {
      return { test: 'disk-space', kind: 'unreadable', dataDir, reason: (err as Error).message };
    }
  }

  private async backups(): Promise<SiteHealthFinding> {
    if (this.d.config.databaseUrl !== null) return { test: 'backups', kind: 'on_postgres' };
    const last = await this.d.store.system.lastBackup();
    if (!last) return { test: 'backups', kind: 'none' };
    const ageHours = Math.max(0, (this.now() - Date.parse(last.takenAt)) / HOUR_MS);
    return { test: 'backups', kind: 'taken', takenAt: last.takenAt, ageHours, file: last.file };
  }
}

/** The worse of two statuses. */
const worse = (a: SiteHealthStatus, b: SiteHealthStatus): SiteHealthStatus => {
  const order: SiteHealthStatus[] = ['good', 'recommended', 'critical'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))]!;
};

/** Where a figure stands: critical at or past `critical`, recommended at or past `recommended` (larger is worse). */
const levelOf = (value: number, recommended: number, critical: number): SiteHealthStatus =>
  value >= critical ? 'critical' : value >= recommended ? 'recommended' : 'good';

const PLATFORM_PAGE: SiteHealthAction = { label: 'Choose Tern’s sender on the Platform page', href: '/admin' };

const bytes = (n: number): string => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${(n / 1e6).toFixed(1)} MB`);
const duration = (s: number): string =>
  s >= 86_400 ? `${(s / 86_400).toFixed(1)} days` : s >= 3600 ? `${(s / 3600).toFixed(1)} hours` : `${Math.round(s / 60)} minutes`;

type Assessed = Omit<SiteHealthResult, 'test' | 'category'>;

function senderResult(f: Extract<SiteHealthFinding, { test: 'system-sender' }>): Assessed {
  switch (f.kind) {
    case 'sending':
      return {
        status: 'good',
        label: 'Tern can send its own mail',
        description: [
          `Invitations, password resets and notices are sent from ${f.address} (${f.source === 'config' ? 'set by TERNMAIL_SYSTEM_MAIL_FROM' : 'chosen on the Platform page'}), a verified domain.`,
        ],
        actions: [],
      };
    case 'none':
      return {
        status: 'critical',
        label: 'No system sender is set',
        description: [
          'Tern cannot send its own mail (invitations, password resets, DNS records by email, low-credit notices): no address to send it from is chosen.',
          'Choose one on a verified domain on the Platform page, or set TERNMAIL_SYSTEM_MAIL_FROM.',
        ],
        actions: [PLATFORM_PAGE],
      };
    case 'unusable':
      return { status: 'critical', label: 'The system sender cannot send', description: [f.problem], actions: [PLATFORM_PAGE] };
  }
}

function hostnameResult(f: Extract<SiteHealthFinding, { test: 'public-hostname' }>): Assessed {
  const setIt = 'Set TERNMAIL_PUBLIC_HOSTNAME (publicHostname) to this server’s public DNS name, such as mx.example.com, and restart Tern.';
  switch (f.kind) {
    case 'unset':
      return {
        status: 'critical',
        label: 'The public host name is not set',
        description: [
          `TERNMAIL_PUBLIC_HOSTNAME is not set: Tern uses this machine’s name, "${f.machineName}", as the host domains point their MX and SPF records at.`,
          setIt,
        ],
        actions: [],
      };
    case 'unusable':
      return { status: 'critical', label: 'The public host name cannot be used', description: [f.problem], actions: [] };
    case 'unresolved':
      return {
        status: 'critical',
        label: 'The public host name does not resolve',
        description: [`${f.host} has no A or AAAA record: mail for the domains pointing their MX at it cannot reach Tern.`, 'Publish its address in its zone.'],
        actions: [],
      };
    case 'lookup_failed':
      return {
        status: 'recommended',
        label: 'The public host name could not be looked up',
        description: [`Looking up ${f.host} failed (${f.error}); see the DNS resolver check.`],
        actions: [],
      };
    case 'elsewhere':
      return {
        status: 'recommended',
        label: 'The public host name resolves to another machine',
        description: [
          `${f.host} resolves to ${f.addresses.join(', ')}, none of them an address of this machine.`,
          'That is right behind a load balancer or NAT that forwards the SMTP ports here; otherwise point the name at this server.',
        ],
        actions: [],
      };
    case 'here':
      return { status: 'good', label: 'The public host name resolves to this machine', description: [`${f.host} resolves to ${f.addresses.join(', ')}.`], actions: [] };
  }
}

function tlsResult(f: Extract<SiteHealthFinding, { test: 'tls-certificate' }>, policy: SiteHealthPolicy): Assessed {
  const configure = 'Give the listeners a certificate with TERNMAIL_TLS_CERT and TERNMAIL_TLS_KEY (certbot’s fullchain.pem and privkey.pem).';
  switch (f.kind) {
    case 'none_yet':
      return {
        status: 'recommended',
        label: 'No TLS certificate yet',
        description: ['No certificate is configured and the MTA has not made its self-signed one yet (it does on its first start).', configure],
        actions: [],
      };
    case 'unreadable':
      return { status: 'critical', label: 'The TLS certificate cannot be read', description: [`${f.path}: ${f.reason}`, configure], actions: [] };
    case 'not_yet_valid':
      return {
        status: 'critical',
        label: 'The TLS certificate is not valid yet',
        description: [`It is valid from ${f.validFrom}; check the machine’s clock.`],
        actions: [],
      };
    case 'expired':
      return {
        status: 'critical',
        label: 'The TLS certificate has expired',
        description: [`It expired on ${f.validTo}: clients that verify certificates refuse the listeners.`, configure],
        actions: [],
      };
    case 'expiring':
      return {
        status: 'recommended',
        label: 'The TLS certificate expires soon',
        description: [`It expires on ${f.validTo}, in ${f.days} days (less than ${policy.tlsExpiryDays}). Renew it; Tern reads the new files when restarted.`],
        actions: [],
      };
    case 'valid':
      return tlsValidResult(f, configure);
  }
}

function tlsValidResult(f: Extract<SiteHealthFinding, { test: 'tls-certificate'; kind: 'valid' }>, configure: string): Assessed {
  const until = `The certificate is valid until ${f.validTo}.`;
  if (f.selfSigned)
    return {
      status: 'recommended',
      label: 'The TLS certificate is self-signed',
      description: [until, 'Mail servers accept it for opportunistic TLS, but mail clients that verify certificates refuse it on the submission ports.', configure],
      actions: [],
    };
  if (!f.coversHost)
    return {
      status: 'recommended',
      label: 'The TLS certificate does not name the public host name',
      description: [until, `It does not cover ${f.host}.`, configure],
      actions: [],
    };
  return { status: 'good', label: 'The TLS certificate is valid', description: [until, `It covers ${f.host}.`], actions: [] };
}

function dnsResult(f: Extract<SiteHealthFinding, { test: 'dns-resolver' }>): Assessed {
  const which = f.servers.length ? f.servers.join(', ') : 'the system’s resolver';
  if (f.kind === 'answering') return { status: 'good', label: 'The DNS resolver answers', description: [`Lookups through ${which} are answered.`], actions: [] };
  return {
    status: 'critical',
    label: 'The DNS resolver does not answer',
    description: [`A lookup through ${which} failed (${f.error}): Tern cannot find MX hosts, check domains or deliver.`, 'Check TERNMAIL_DNS_SERVERS (dnsServers).'],
    actions: [],
  };
}

function readinessResult(f: Extract<SiteHealthFinding, { test: 'store-and-redis' }>): Assessed {
  if (f.kind === 'ready')
    return { status: 'good', label: 'The store and Redis answer', description: ['The database and Redis answered within the probe’s time limit.'], actions: [] };
  return {
    status: 'critical',
    label: 'The store or Redis does not answer',
    description: [`Not answering within health.probeTimeoutMs: ${f.parts.join(', ')}. Mail cannot be accepted or delivered until it does.`],
    actions: [],
  };
}

function queueResult(f: Extract<SiteHealthFinding, { test: 'queue' }>, policy: SiteHealthPolicy): Assessed {
  const backlog = levelOf(f.backlog, policy.queueBacklogRecommended, policy.queueBacklogCritical);
  const age = f.oldestAgeS === null ? 'good' : levelOf(f.oldestAgeS, policy.queueOldestRecommendedS, policy.queueOldestCriticalS);
  const status = worse(backlog, age);
  const facts = [
    `${f.backlog} recipients waiting for delivery${f.oldestAgeS === null ? '' : `, the oldest queued ${duration(f.oldestAgeS)} ago`}; ${f.held} held by operators.`,
  ];
  const label = { good: 'The queue is flowing', recommended: 'The queue is backing up', critical: 'The queue is stuck' }[status];
  const advice = status === 'good' ? [] : ['Look for deferrals to one destination (`ternmail queue summary`) and at the MTA’s logs.'];
  return { status, label, description: [...facts, ...advice], actions: [] };
}

function diskResult(f: Extract<SiteHealthFinding, { test: 'disk-space' }>, policy: SiteHealthPolicy): Assessed {
  if (f.kind === 'unreadable') return { status: 'critical', label: 'The data directory cannot be measured', description: [`${f.dataDir}: ${f.reason}`], actions: [] };
  const percent = f.totalBytes > 0 ? (100 * f.freeBytes) / f.totalBytes : 0;
  // Less free space is worse: the thresholds are compared on the space used.
  const status = levelOf(100 - percent, 100 - policy.diskFreeRecommendedPercent, 100 - policy.diskFreeCriticalPercent);
  const label = { good: 'Enough disk space', recommended: 'Disk space is running low', critical: 'The disk is almost full' }[status];
  const facts = `${bytes(f.freeBytes)} free of ${bytes(f.totalBytes)} (${percent.toFixed(1)} %) on the file system of ${f.dataDir}.`;
  return { status, label, description: status === 'good' ? [facts] : [facts, 'A full disk stops Tern accepting mail. Free space or grow the volume.'], actions: [] };
}

function backupResult(f: Extract<SiteHealthFinding, { test: 'backups' }>, policy: SiteHealthPolicy): Assessed {
  const how = 'Run `ternmail backup --to FILE` regularly (a systemd timer or cron) and keep the archives on another machine.';
  switch (f.kind) {
    case 'on_postgres':
      return {
        status: 'recommended',
        label: 'Back up PostgreSQL with its own tools',
        description: ['The store is on PostgreSQL: Tern cannot see its backups. Use pg_dump or pgBackRest, and keep a copy of keys/master.key from the data directory.'],
        actions: [],
      };
    case 'none':
      return { status: 'critical', label: 'No backup has been taken', description: ['No `ternmail backup` was ever recorded on this installation.', how], actions: [] };
    case 'taken': {
      const status = levelOf(f.ageHours, policy.backupRecommendedHours, policy.backupCriticalHours);
      const label = { good: 'Backups are recent', recommended: 'The last backup is getting old', critical: 'The last backup is too old' }[status];
      const facts = `The last backup was taken ${duration(f.ageHours * 3600)} ago (${f.takenAt}), to ${f.file}.`;
      return { status, label, description: status === 'good' ? [facts] : [facts, how], actions: [] };
    }
  }
}

const CATEGORY: Readonly<Record<SiteHealthTest, SiteHealthCategory>> = {
  'system-sender': 'Email',
  'public-hostname': 'Email',
  'tls-certificate': 'Security',
  'dns-resolver': 'Email',
  'store-and-redis': 'Reliability',
  queue: 'Performance',
  'disk-space': 'Reliability',
  backups: 'Reliability',
};

/** The one place a finding becomes a status and the words an operator reads. */
export function assess(f: SiteHealthFinding, policy: SiteHealthPolicy): SiteHealthResult {
  const assessed = ((): Assessed => {
    switch (f.test) {
      case 'system-sender':
        return senderResult(f);
      case 'public-hostname':
        return hostnameResult(f);
      case 'tls-certificate':
        return tlsResult(f, policy);
      case 'dns-resolver':
        return dnsResult(f);
      case 'store-and-redis':
        return readinessResult(f);
      case 'queue':
        return queueResult(f, policy);
      case 'disk-space':
        return diskResult(f, policy);
      case 'backups':
        return backupResult(f, policy);
    }
  })();
  return { test: f.test, category: CATEGORY[f.test], ...assessed };
}
