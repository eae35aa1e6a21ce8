// `ternmail queue …`: the sysadmin's mailq, qshape, postqueue -f and postsuper -h/-H/-d, translated to the core's
// queue control (core/queue-control.ts). Lists print one line per recipient or destination (`--json`: one JSON
// object per line); changes print what they changed. Released and flushed recipients are put on the Redis schedule
// when Redis answers; otherwise the MTA's sweep finds them in SQLite.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { QueueControl, DestinationSummary, QueueChange, QueuedRecipient, QueueSelection } from '../core/queue-control.js';
import type { Managed, ManagementRefusal } from '../core/management-refusals.js';
import { destinationView, queuedRecipientLine } from '../core/presenters.js';
import { operatorRedis } from './managed-redis.js';
import { connectRedis } from '../redis.js';
import { flags, integer, UsageError, type Flags } from './cli-flags.js';
import { cliActor, valueOf as valueOrThrow, withHost } from './host-commands.js';

/** Text a command prints as it is, instead of the JSON object the other operator commands print. */
export class PrintedLines {
  constructor(readonly lines: readonly string[]) {}
}

type Command = (config: Config, args: string[]) => Promise<unknown>;

const SELECTOR_FLAGS = { team: 'string', domain: 'string', state: 'string', 'older-than': 'string', message: 'string', all: 'boolean', json: 'boolean' } as const;

/**
 * The CLI's connection to Redis, for the commands that put recipients back on the schedule (release, flush,
 * requeue): one try, no offline queue, so a Redis that is down fails them at once (the MTA's sweep then finds the
 * recipients in SQLite). The others never connect: a refused connection keeps ioredis's connect timer, and so
 * the process, alive for its whole timeout.
 */
async function redisFor(config: Config, schedules: boolean): Promise<Redis> {
  // Behind Sentinel, one round of the sentinels too: ioredis would otherwise ask them again for ever.
  const oneTry = {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    connectTimeout: 2000,
  };
  const redis = connectRedis(operatorRedis(config), 'tern-cli', oneTry);
  redis.on('error', () => undefined);
  if (schedules) await redis.connect().catch(() => undefined);
  return redis;
}

async function withQueueControl<T>(config: Config, work: (control: QueueControl) => Promise<T>, o: { schedules?: boolean } = {}): Promise<T> {
  return withHost(config, async (host) => {
    const redis = await redisFor(config, o.schedules === true);
    try {
      return await work(host.queueControl(redis));
    } finally {
      redis.disconnect();
    }
  });
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
const oneLine = (text: string | null) => (text ? text.replace(/\s+/g, ' ') : '-');

/** An age as a sysadmin reads it: 42s, 17m, 5h, 3d. */
function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

const recipientLine = (r: QueuedRecipient) =>
  [r.messageId, `team=${r.teamId}`, r.email, r.state, `attempts=${r.attempts}`, `next=${iso(r.nextAttemptAt)}`, oneLine(r.lastReply)].join('  ');

function summaryLines(rows: readonly DestinationSummary[], now: number): string[] {
  const header = ['domain', 'total', 'queued', 'sending', 'deferred', 'held', 'oldest', 'last error'];
  const body = rows.map((d) => {
    const j = destinationView(d);
    return [j.domain, j.total, j.queued, j.sending, j.deferred, j.held, age(now - d.oldestQueuedAt), oneLine(d.lastError)].map(String);
  });
  const widths = header.slice(0, -1).map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < widths.length ? c.padEnd(widths[i]!) : c)).join('  ');
  return [line(header), ...body.map(line)];
}

/** The queue's own refusals, in the words of a requeue; the others as every command says them. */
function queueRefusal(refusal: ManagementRefusal): Error | undefined {
  if (refusal.kind === 'suppressed_addresses') return new Error(`not requeued: on the suppression list: ${refusal.emails.join(', ')}`);
  if (refusal.kind === 'insufficient_credits') return new Error(`not requeued: not enough credits to pay for the new attempts (the balance is ${refusal.balance})`);
  return undefined;
}
const valueOf = <T>(m: Managed<T>): T => valueOrThrow(m, queueRefusal);
const selectionOf = (f: Flags): QueueSelection => ({
  teamId: integer(f, 'team', { min: 1 }),
  domain: typeof f.domain === 'string' ? f.domain : undefined,
  state: typeof f.state === 'string' ? f.state : undefined,
  olderThan: typeof f['older-than'] === 'string' ? f['older-than'] : undefined,
  messageId: typeof f.message === 'string' ? f.message : undefined,
  all: f.all === true,
});
const changeLines = (verb: string, change: QueueChange, extra: string[] = []): string[] => [
  `${verb} ${change.changed} recipient${change.changed === 1 ? '' : 's'}${extra.length ? ` (${extra.join(', ')})` : ''}`,
  ...change.recipients.map((r) => `  ${r.messageId}  recipient_id=${r.id}`),
];
const printed = (json: boolean, lines: string[], body: object) => (json ? body : new PrintedLines(lines));

/** hold, release and flush: the same flags, the same output. */
const simpleChange = (verb: string, schedules: boolean, run: (c: QueueControl, s: QueueSelection, reason: string) => ReturnType<QueueControl['hold']>): Command => {
  return (config, args) => {
    const f = flags(args, { ...SELECTOR_FLAGS, reason: 'string' });
    const selection = selectionOf(f);
    const reason = typeof f.reason === 'string' ? f.reason : '';
    return withQueueControl(
      config,
      async (control) => {
        const change = valueOf(await run(control, selection, reason));
        return printed(f.json === true, changeLines(verb, change), {
          [verb]: change.changed,
          recipients: change.recipients.map((r) => ({ recipient_id: r.id, message_id: r.messageId })),
        });
      },
      { schedules },
    );
  };
};

/** The queue commands, by name, for shared/cli/ternmail.ts. */
export const queueCommands: Record<string, Command> = {
  'queue list': (config, args) => {
    const f = flags(args, { ...SELECTOR_FLAGS, limit: 'string' });
    const limit = integer(f, 'limit', { min: 1 });
    return withQueueControl(config, async (control) => {
      const rows = valueOf(await control.list(selectionOf(f), limit));
      if (f.json === true) return new PrintedLines(rows.map((r) => JSON.stringify(queuedRecipientLine(r))));
      return new PrintedLines(rows.length ? rows.map(recipientLine) : ['the queue holds no such recipient']);
    });
  },
  'queue summary': (config, args) => {
    const f = flags(args, SELECTOR_FLAGS);
    return withQueueControl(config, async (control) => {
      const rows = valueOf(await control.summary(selectionOf(f)));
      if (f.json === true) return new PrintedLines(rows.map((d) => JSON.stringify(destinationView(d))));
      return new PrintedLines(rows.length ? summaryLines(rows, Date.now()) : ['the queue holds no such recipient']);
    });
  },
  'queue hold': simpleChange('held', false, (c, s, reason) => c.hold(cliActor(), s, reason)),
  'queue release': simpleChange('released', true, (c, s, reason) => c.release(cliActor(), s, reason)),
  'queue flush': simpleChange('flushed', true, (c, s, reason) => c.flush(cliActor(), s, reason)),
  'queue requeue': (config, args) => {
    const f = flags(args, { ...SELECTOR_FLAGS, reason: 'string' });
    const selection = selectionOf(f);
    const reason = typeof f.reason === 'string' ? f.reason : '';
    return withQueueControl(
      config,
      async (control) => {
        const change = valueOf(await control.requeue(cliActor(), selection, reason));
        const skipped = change.suppressed.map((r) => `  ${r.messageId}  recipient_id=${r.id}  ${r.email}: on the suppression list, not requeued`);
        return printed(f.json === true, [...changeLines('requeued', change), ...skipped], {
          requeued: change.changed,
          recipients: change.recipients.map((r) => ({ recipient_id: r.id, message_id: r.messageId })),
          suppressed: change.suppressed.map((r) => ({ recipient_id: r.id, message_id: r.messageId, email: r.email })),
        });
      },
      { schedules: true },
    );
  },
  'queue purge': (config, args) => {
    const f = flags(args, { ...SELECTOR_FLAGS, reason: 'string', notify: 'boolean' });
    const selection = selectionOf(f);
    if (typeof f.reason !== 'string') throw new UsageError('--reason is required: it is what the recipients’ log says');
    const reason = f.reason;
    return withQueueControl(config, async (control) => {
      const change = valueOf(await control.purge(cliActor(), selection, reason, f.notify === true));
      const extra = [
        `${change.finished} message${change.finished === 1 ? '' : 's'} finished`,
        `${change.notified} soft bounce${change.notified === 1 ? '' : 's'} reported`,
      ];
      return printed(f.json === true, changeLines('purged', change, extra), {
        purged: change.changed,
        finished: change.finished,
        notified: change.notified,
        recipients: change.recipients.map((r) => ({ recipient_id: r.id, message_id: r.messageId })),
      });
    });
  },
};
