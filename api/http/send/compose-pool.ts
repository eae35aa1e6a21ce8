// Worker threads that compose the MIME messages of HTTP sends. Composing (nodemailer's streams, quoted-printable
// and base64 encoding, html-to-text) is about 30% of the API's CPU per send, and a message with 10 MB of
// attachments or a large html body would hold the event loop for tens of milliseconds: on a worker, it holds
// neither the other requests nor their latency. See docs/decisions.md.
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Composed } from './compose.js';
import type { SendRequest } from './request.js';

export interface ComposeJob {
  seq: number;
  request: SendRequest;
  messageId: string;
}

export type ComposeReply = { seq: number; ok: true; body: Uint8Array; messageIdHeader: string } | { seq: number; ok: false; message: string };

interface Waiting {
  resolve: (composed: Composed) => void;
  reject: (err: Error) => void;
}

/** The worker's module beside this one: .js when built, .ts when the tests run the sources. */
const WORKER_URL = new URL(`./compose-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

class ComposeWorker {
  readonly waiting = new Map<number, Waiting>();
  private readonly worker: Worker;

  constructor(onLost: (lost: ComposeWorker, reason: Error) => void) {
    this.worker = new Worker(WORKER_URL);
    // The API's own stop decides when the process ends; an idle worker must not keep it alive.
    this.worker.unref();
    this.worker.on('message', (reply: ComposeReply) => this.settle(reply));
    this.worker.on('error', (err) => onLost(this, err));
    this.worker.on('exit', (code) => onLost(this, new Error(`compose worker exited with code ${code}`)));
  }

  post(job: ComposeJob, waiting: Waiting): void {
    this.waiting.set(job.seq, waiting);
    this.worker.postMessage(job);
  }

  /** Fails every job still waiting on this worker. */
  failAll(reason: Error): void {
    for (const w of this.waiting.values()) w.reject(reason);
    this.waiting.clear();
  }

  async terminate(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private settle(reply: ComposeReply): void {
    const w = this.waiting.get(reply.seq);
    if (!w) return;
    this.waiting.delete(reply.seq);
    if (reply.ok) w.resolve({ body: Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength), messageIdHeader: reply.messageIdHeader });
    else w.reject(new Error(reply.message));
  }
}

export class ComposePool {
  private readonly workers: ComposeWorker[] = [];
  private seq = 0;
  private closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  /** Composes on the worker with the fewest jobs waiting. */
  compose(request: SendRequest, messageId: string): Promise<Composed> {
    if (this.closed) return Promise.reject(new Error('the compose pool is closed'));
    const worker = this.workers.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
    return new Promise<Composed>((resolve, reject) => worker.post({ seq: this.seq++, request, messageId }, { resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    for (const w of workers) w.failAll(new Error('the compose pool is closed'));
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private spawn(): ComposeWorker {
    return new ComposeWorker((lost, reason) => this.replace(lost, reason));
  }

  /** A worker that died fails its jobs (the requests answer 500) and is replaced, so later sends still compose. */
  private replace(lost: ComposeWorker, reason: Error): void {
    const at = this.workers.indexOf(lost);
    if (at === -1) return;
    lost.failAll(reason);
    void lost.terminate();
    if (!this.closed) this.workers[at] = this.spawn();
  }
}
