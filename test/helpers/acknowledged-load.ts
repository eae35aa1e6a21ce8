// What the reliability tests count: messages sent over HTTP until each has its 200 (each attempt tagged like
// the SMTP load's, smtp-load.ts), the copies the sink got of each acknowledged message, and the store settling.
import type { Store } from '../../shared/store/index.js';
import { http } from './cli.js';
import type { Sink } from './sink.js';
import { loadIdOf, type Ack } from './smtp-load.js';

export interface SinkCount {
  /** Copies per message number. */
  perMessage: Map<number, number>;
  /** Copies beyond the first of one submission attempt: what the MTA delivered twice. */
  redelivered: number;
  /** Messages that arrived from more than one attempt: the client submitted again after losing its reply. */
  resubmitted: number;
}

export function countSink(sink: Sink): SinkCount {
  const perAttempt = new Map<string, number>();
  const perMessage = new Map<number, number>();
  const attemptsOf = new Map<number, Set<number>>();
  for (const m of sink.messages) {
    const id = loadIdOf(m.raw);
    if (!id) continue;
    const key = `${id.n}.${id.attempt}`;
    perAttempt.set(key, (perAttempt.get(key) ?? 0) + 1);
    perMessage.set(id.n, (perMessage.get(id.n) ?? 0) + 1);
    attemptsOf.set(id.n, (attemptsOf.get(id.n) ?? new Set()).add(id.attempt));
  }
  let redelivered = 0;
  for (const copies of perAttempt.values()) redelivered += copies - 1;
  const resubmitted = [...attemptsOf.values()].filter((s) => s.size > 1).length;
  return { perMessage, redelivered, resubmitted };
}

/** Resolves once every acknowledged message has a copy in the sink; returns the ones still missing on timeout. */
export async function waitDelivered(sink: Sink, acked: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { perMessage } = countSink(sink);
    const missing = acked.filter((n) => !perMessage.has(n));
    if (!missing.length || Date.now() > deadline) return missing;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Recipients by state once nothing is queued, sending or deferred any more (or after 30 s). */
export async function waitSettled(store: Store): Promise<Record<string, number>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const states = await store.messages.countByState();
    const inFlight = (states.queued ?? 0) + (states.sending ?? 0) + (states.deferred ?? 0);
    if (!inFlight || Date.now() > deadline) return states;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface HttpLoadOptions {
  apiUrl: string;
  key: string;
  from: string;
  /** Message numbers first … first + count - 1 (kept apart from the SMTP load's). */
  first: number;
  count: number;
  concurrency: number;
  to(n: number): string;
  onAck(): void;
}

/** HTTP sends through the API process, each retried as a new attempt until a 200 (the API answers 5xx while Redis is away). */
export async function httpLoad(o: HttpLoadOptions): Promise<{ acks: Map<number, Ack>; failures: Map<number, number> }> {
  const acks = new Map<number, Ack>();
  const failures = new Map<number, number>();
  let next = o.first;
  const deadline = Date.now() + 120_000;
  async function sendOne(n: number): Promise<void> {
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const res = await http(o.apiUrl, 'POST', '/v2/emails', {
        key: o.key,
        body: { from: { email: o.from }, to: [{ email: o.to(n) }], subject: `HTTP ${n}`, text: 'hello', headers: { 'X-Load-Id': `${n}.${attempt}` } },
      }).catch(() => ({ status: 0, body: undefined }));
      if (res.status === 200) {
        acks.set(n, { n, attempt, queuedId: (res.body as { message_id: string }).message_id, at: Date.now() });
        o.onAck();
        return;
      }
      failures.set(res.status, (failures.get(res.status) ?? 0) + 1);
      if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new Error(`send ${n} refused: ${res.status} ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.first + o.count) await sendOne(next++);
    }),
  );
  return { acks, failures };
}
