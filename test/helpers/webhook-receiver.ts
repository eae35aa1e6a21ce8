// A webhook receiver for tests: real HTTP or HTTPS servers on loopback that keep every request they get and
// answer by path, a self-signed certificate for the hook names, and the receiver's side of the signature:
// Standard Webhooks verification written from the spec rather than from our signer.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { generate } from 'selfsigned';
import { freePort } from './redis.js';

// ---------------------------------------------------------------- receivers

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the receiver saw the connection close (set for /big). */
  closedAt?: number;
  at: number;
}

export interface Receiver {
  port: number;
  got: Received[];
  to(path: string): Received[];
  close(): Promise<void>;
}

/** What a receiver answers, by path. */
export function answer(req: IncomingMessage, res: ServerResponse, rec: Received, port: number, scheme: string): void {
  if (rec.path === '/fail') {
    res.writeHead(500).end('receiver broke');
  } else if (rec.path === '/hang') {
    // never answers
  } else if (rec.path === '/redirect') {
    res.writeHead(302, { location: `${scheme}://hooks.example.com:${port}/redirected` }).end();
  } else if (rec.path === '/big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    req.socket.on('close', () => (rec.closedAt = Date.now()));
    pump();
  } else {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
}

export async function startReceiver(o: { tls?: { key: string; cert: string }; port?: number; hosts?: string[] } = {}): Promise<Receiver> {
  const port = o.port ?? (await freePort());
  const got: Received[] = [];
  const sockets = new Set<Socket>();
  const scheme = o.tls ? 'https' : 'http';
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      got.push(rec);
      answer(req, res, rec, port, scheme);
    });
  };
  const servers: Server[] = [];
  for (const host of o.hosts ?? ['127.0.0.1']) {
    const server: Server = o.tls ? createHttpsServer(o.tls, handler) : createHttpServer(handler);
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, host, () => resolve(true));
    });
    if (ok) servers.push(server);
    else if (host === '127.0.0.1') throw new Error(`receiver cannot listen on ${host}:${port}`);
  }
  return {
    port,
    got,
    to: (path) => got.filter((r) => r.path === path),
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** A self-signed certificate for the hook names; delivery trusts it through TERNMAIL_WEBHOOK_CA_FILE (webhooks.caFile). */
export async function certificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'hooks.example.com' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 7 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'hooks.example.com' },
          { type: 2, value: '*.example.com' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

// ---------------------------------------------------------------- the receiver's side of the signature

/** Standard Webhooks verification, written from the spec rather than from our signer. */
export function verifies(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  if (!id || !/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((entry) => {
      const [version, sig] = entry.split(',');
      const given = Buffer.from(sig ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
