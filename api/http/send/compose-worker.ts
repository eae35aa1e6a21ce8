// A worker thread of the ComposePool: composes the MIME message of a send request with nodemailer, off the
// API's event loop. Messages in and out are described in compose-pool.ts.
import { parentPort } from 'node:worker_threads';
import { composeMessage } from './compose.js';
import type { ComposeJob, ComposeReply } from './compose-pool.js';

const port = parentPort;
if (!port) throw new Error('compose-worker runs as a worker thread of the API');

port.on('message', (job: ComposeJob) => {
  // Buffers arrive as plain Uint8Arrays; nodemailer wants Buffers for attachment content.
  const request = {
    ...job.request,
    attachments: job.request.attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) })),
  };
  composeMessage(request, job.messageId).then(
    (composed) => {
      // A copy of its own, so that transferring it detaches nothing else (small Buffers share a pool slab).
      const body = new Uint8Array(composed.body);
      const reply: ComposeReply = { seq: job.seq, ok: true, body, messageIdHeader: composed.messageIdHeader };
      port.postMessage(reply, [body.buffer]);
    },
    (err: unknown) => {
      const reply: ComposeReply = { seq: job.seq, ok: false, message: err instanceof Error ? err.message : String(err) };
      port.postMessage(reply);
    },
  );
});
