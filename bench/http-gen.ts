// The HTTP load generator, in its own process: `clients` concurrent clients over keep-alive connections
// sending POST /v2/emails for `durationS` seconds, either each as fast as answers come (closed loop: the
// figure is the capacity), or at a fixed offered rate (open loop: the figure is the latency at that rate).
// IPC: {type:'run', ...HttpRunSpec} → {type:'done', ...HttpRunResult}.
import { Agent, request } from 'node:http';
import { filler, percentile } from './lib.js';

export interface HttpRunSpec {
  url: string;
  key: string;
  clients: number;
  durationS: number;
  /** Size of the text part. */
  bodyBytes: number;
  /**
   * Requests per second offered on a fixed schedule, sent by whichever client is free. A request's latency is
   * counted from its scheduled time, not from when a client was free to send it, so a server falling behind
   * shows in the figures (no coordinated omission). Absent: closed loop.
   */
  rate?: number;
}

export interface HttpRunResult {
  type: 'done';
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  errors: string[];
  elapsedMs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function post(agent: Agent, url: URL, key: string, payload: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: '/v2/emails',
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function run(spec: HttpRunSpec): Promise<HttpRunResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.clients });
  const url = new URL(spec.url);
  const text = filler(spec.bodyBytes);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const errors: string[] = [];
  let ok = 0;
  let failed = 0;
  let seq = 0;
  const started = performance.now();
  const until = started + spec.durationS * 1000;
  const client = async () => {
    for (;;) {
      const i = seq++;
      const scheduled = spec.rate === undefined ? performance.now() : started + (i * 1000) / spec.rate;
      if (scheduled >= until) break;
      const early = scheduled - performance.now();
      if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
      const payload = Buffer.from(
        JSON.stringify({ from: { email: 'sender@example.com', name: 'Bench' }, to: [{ email: `rcpt${i % 1000}@dest.test` }], subject: `bench message ${i}`, text }),
      );
      try {
        const res = await post(agent, url, spec.key, payload);
        latencies.push(performance.now() - scheduled);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) ok++;
        else {
          failed++;
          if (errors.length < 5) errors.push(`${res.status} ${res.text.slice(0, 200)}`);
        }
      } catch (err) {
        failed++;
        if (errors.length < 5) errors.push((err as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.clients }, client));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    type: 'done',
    ok,
    failed,
    statuses,
    errors,
    elapsedMs,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
  };
}

process.on('disconnect', () => process.exit(0));
process.on('message', (m: { type: string } & HttpRunSpec) => {
  if (m.type === 'run')
    void run(m).then(
      (r) => process.send!(r),
      (err: Error) => process.send!({ type: 'error', message: err.message }),
    );
});
process.send!({ type: 'ready' });
