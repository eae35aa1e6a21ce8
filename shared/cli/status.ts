// `ternmail status`: asks the core's system status (over the host's store, and Redis it connects here) and
// prints it, for a person by default or as one JSON object with --json. The exit code says whether all is up.
import type { Config } from '../config.js';
import { connectRedis, redisInUse, type RedisInUse } from '../redis.js';
import type { NodeRecord, ProcessStatus, SystemStatusReport } from '../core/system-status.js';
import { withHost } from './host-commands.js';
import { operatorRedis } from './managed-redis.js';

/** "3d 04h", "2h 05m", "4m 10s": an uptime as a person reads it. */
export function duration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${pad(h)}h`;
  if (h > 0) return `${h}h ${pad(m)}m`;
  return `${m}m ${pad(seconds % 60)}s`;
}

function processLine(p: ProcessStatus): string {
  const uptime = p.uptimeS === null ? '' : `, up ${duration(p.uptimeS)}`;
  const state = p.readiness.state === 'ready' ? 'ready' : p.readiness.state === 'unready' ? `NOT READY (failing: ${p.readiness.failing.join(', ')})` : 'DOWN (no answer)';
  return `${state}${uptime}  ${p.url}`;
}

function domainCheckLine(r: SystemStatusReport): string {
  if (!r.domainCheck.known) return 'unknown (Redis does not answer)';
  const round = r.domainCheck.lastRound;
  if (!round) return 'no round recorded yet';
  return `last round ended ${round.endedAt}: ${round.checked} checked, ${round.verified} verified, ${round.expired} expired`;
}

/** "mta db2.example 4127 Tern 1.4.0, ports mx 25, metrics 9465, up 3d 04h, seen 2s ago": one node as a person reads it. */
function nodeLine(n: NodeRecord, now: number): string {
  const ports = Object.entries(n.ports)
    .map(([name, port]) => `${name} ${port}`)
    .join(', ');
  const up = duration(Math.max(0, Math.floor((now - Date.parse(n.startedAt)) / 1000)));
  const seen = Math.max(0, Math.round((now - Date.parse(n.lastSeen)) / 1000));
  return `${n.role} ${n.host} pid ${n.pid} Tern ${n.version}, ports ${ports}, up ${up}, seen ${seen}s ago`;
}

/** The Nodes row and one more row per node after the first. */
function nodeRows(r: SystemStatusReport): Array<[string, string]> {
  if (!r.nodes.known) return [['Nodes', 'unknown (Redis does not answer)']];
  if (r.nodes.nodes.length === 0) return [['Nodes', 'none has recorded a heartbeat']];
  const now = Date.now();
  return r.nodes.nodes.map((n, i): [string, string] => [i === 0 ? 'Nodes' : '', nodeLine(n, now)]);
}

/** Which Redis answered (or was asked): its URL, or the master group, its sentinels and the master reached. */
function redisLine(up: boolean, using: RedisInUse): string {
  const state = up ? 'up' : 'DOWN';
  if (using.mode === 'url') return `${state}  ${using.url}`;
  const master = using.master === null ? 'no master reached' : `master ${using.master}`;
  return `${state}  Sentinel group ${using.name} (sentinels ${using.sentinels.join(', ')}), ${master}`;
}

function redisObject(up: boolean, using: RedisInUse): Record<string, unknown> {
  if (using.mode === 'url') return { up, mode: 'url', url: using.url };
  return { up, mode: 'sentinel', master_group: using.name, sentinels: using.sentinels, master: using.master };
}

function humanText(r: SystemStatusReport, using: RedisInUse): string {
  const rows: Array<[string, string]> = [
    ['Versions', `Tern ${r.versions.tern}, Node ${r.versions.node}, ${r.versions.database}`],
    ['Data dir', r.dataDir],
    ['Schema', `version ${r.schemaVersion}`],
    ['Redis', redisLine(r.redis.up, using)],
    ...r.processes.map((p): [string, string] => [p.name.toUpperCase(), processLine(p)]),
    ['Listeners', r.listeners.map((l) => `${l.name} ${l.port} ${l.up ? 'up' : 'DOWN'}`).join(', ')],
    [
      'Queue',
      Object.entries(r.queue)
        .map(([state, n]) => `${state} ${n}`)
        .join(', ') + ' (recipients in the queue)',
    ],
    ...nodeRows(r),
    ['Domain check', domainCheckLine(r)],
    ['Webhooks', `${r.webhookOutbox} event(s) waiting in the outbox`],
    ['Status', r.down.length === 0 ? 'ok' : `DOWN: ${r.down.join(', ')}`],
  ];
  return rows.map(([label, value]) => `${label.padEnd(14)}${value}`).join('\n') + '\n';
}

function jsonObject(r: SystemStatusReport, using: RedisInUse): Record<string, unknown> {
  const round = r.domainCheck.known ? r.domainCheck.lastRound : null;
  return {
    status: r.down.length === 0 ? 'ok' : 'down',
    down: r.down,
    versions: r.versions,
    data_dir: r.dataDir,
    schema_version: r.schemaVersion,
    redis: redisObject(r.redis.up, using),
    processes: r.processes.map((p) => ({
      name: p.name,
      url: p.url,
      state: p.readiness.state,
      failing: p.readiness.state === 'unready' ? p.readiness.failing : [],
      started_at: p.startedAt,
      uptime_s: p.uptimeS,
    })),
    listeners: r.listeners,
    queue: r.queue,
    domain_check: {
      known: r.domainCheck.known,
      last_round: round && { ended_at: round.endedAt, checked: round.checked, verified: round.verified, expired: round.expired },
    },
    webhook_outbox: r.webhookOutbox,
    nodes: r.nodes.known
      ? r.nodes.nodes.map((n) => ({
          id: n.id,
          role: n.role,
          host: n.host,
          pid: n.pid,
          version: n.version,
          ports: n.ports,
          started_at: n.startedAt,
          last_seen: n.lastSeen,
        }))
      : null,
  };
}

/** Prints the status; the exit code: 0 when everything answers, 1 when something is down. */
export async function printStatus(config: Config, asJson: boolean): Promise<number> {
  return withHost(config, async (host) => {
    const target = operatorRedis(config);
    const redis = connectRedis(target, 'tern-status');
    // A Redis that is down is a finding of the report, not an error to print.
    redis.on('error', () => undefined);
    try {
      const report = await host.systemStatus(redis).report();
      return printReport(config, report, redisInUse(target, redis), asJson);
    } finally {
      redis.disconnect();
    }
  });
}

/** Writes the report with the configuration's problems beside it; the exit code it gives. */
function printReport(config: Config, report: SystemStatusReport, using: RedisInUse, asJson: boolean): number {
  const problems = config.publicHostnameProblem === null ? [] : [config.publicHostnameProblem];
  // A configuration problem is a finding beside the report: the parts may all be up and still publish nothing usable.
  process.stdout.write(
    asJson
      ? JSON.stringify({ ...jsonObject(report, using), configuration_problems: problems }) + '\n'
      : humanText(report, using) + problems.map((p) => `${'Configuration'.padEnd(14)}PROBLEM: ${p}\n`).join(''),
  );
  return report.down.length === 0 ? 0 : 1;
}
