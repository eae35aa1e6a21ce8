// A real DNS server on loopback (UDP and TCP) whose records a test or a benchmark sets and changes at will.
// Point TERNMAIL_DNS_SERVERS at `server.address`.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { freePort } from './ports.js';

export type TestRecord =
  | { type: 'A'; data: string }
  | { type: 'AAAA'; data: string }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'MX'; data: { preference: number; exchange: string } }
  | { type: 'CNAME'; data: string };

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, as TERNMAIL_DNS_SERVERS takes it. */
  address: string;
  port: number;
  set(name: string, records: TestRecord[]): void;
  add(name: string, record: TestRecord): void;
  remove(name: string): void;
  /** Names with no records answer NXDOMAIN, unless made to fail with SERVFAIL here. */
  fail(name: string): void;
  /** Answers for `name` are sent `ms` later (0 restores prompt answers), to make a lookup take time. */
  delay(name: string, ms: number): void;
  queries: Array<{ name: string; type: string }>;
  close(): Promise<void>;
}

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** TXT strings longer than 255 bytes are split into chunks, as a zone file would publish them. */
function txtChunks(data: string | string[]): string[] {
  const parts = Array.isArray(data) ? data : [data];
  return parts.flatMap((p) => p.match(/.{1,255}/gs) ?? ['']);
}

/** The records a server holds now, the names made to fail or answer late, and the queries it saw. */
interface Zone {
  records: Map<string, TestRecord[]>;
  failing: Set<string>;
  delays: Map<string, number>;
  queries: TestDnsServer['queries'];
}

/** The answer to `packet` from the zone as it is now: its records, else NXDOMAIN, or SERVFAIL when made to fail. */
function answer(zone: Zone, packet: dnsPacket.Packet): Buffer {
  const question = packet.questions?.[0];
  const response: dnsPacket.Packet = { id: packet.id, type: 'response', flags: dnsPacket.AUTHORITATIVE_ANSWER, questions: packet.questions, answers: [] };
  if (!question) return dnsPacket.encode(response);
  const name = key(question.name);
  // dns-packet encodes the response code from the low bits of flags (2 = SERVFAIL, 3 = NXDOMAIN).
  if (zone.failing.has(name)) return dnsPacket.encode({ ...response, flags: (response.flags ?? 0) | 2 });
  const records = zone.records.get(name);
  if (!records) return dnsPacket.encode({ ...response, flags: (response.flags ?? 0) | 3 });
  const matching = records.filter((r) => r.type === question.type || r.type === 'CNAME');
  response.answers = matching.map((r) => ({
    name: question.name,
    type: r.type,
    class: 'IN',
    ttl: 60,
    data: r.type === 'TXT' ? txtChunks(r.data) : r.data,
  })) as dnsPacket.Answer[];
  return dnsPacket.encode(response);
}

/** Records the query on arrival and answers it after the delay set for its name. */
function receive(zone: Zone, query: Buffer, reply: (answer: Buffer) => void): void {
  let packet: dnsPacket.Packet;
  try {
    packet = dnsPacket.decode(query);
  } catch {
    return; // a malformed query gets no answer
  }
  const question = packet.questions?.[0];
  if (question) zone.queries.push({ name: question.name, type: question.type });
  const wait = question ? (zone.delays.get(key(question.name)) ?? 0) : 0;
  setTimeout(() => {
    try {
      reply(answer(zone, packet));
    } catch {
      // an unencodable answer, or a server closed while the answer was held back: no answer
    }
  }, wait);
}

/** One TCP connection: queries and answers each framed by a two-byte length. */
function tcpSession(zone: Zone, socket: TcpSocket): void {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
      const length = buffered.readUInt16BE(0);
      const query = Buffer.from(buffered.subarray(2, 2 + length));
      buffered = buffered.subarray(2 + length);
      receive(zone, query, (reply) => {
        if (socket.destroyed) return;
        const framed = Buffer.alloc(2 + reply.length);
        framed.writeUInt16BE(reply.length, 0);
        reply.copy(framed, 2);
        socket.write(framed);
      });
    }
  });
  socket.on('error', () => undefined);
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone: Zone = { records: new Map(), failing: new Set(), delays: new Map(), queries: [] };
  const { records, failing, delays } = zone;

  const port = await freePort();
  const udp: Socket = createSocket('udp4');
  udp.on('message', (msg, rinfo) => receive(zone, msg, (reply) => udp.send(reply, rinfo.port, rinfo.address)));
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', () => resolve()));
  const tcp: Server = createServer((socket: TcpSocket) => tcpSession(zone, socket));
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', () => resolve()));

  return {
    address: `127.0.0.1:${port}`,
    port,
    queries: zone.queries,
    set: (name, list) => {
      failing.delete(key(name));
      records.set(key(name), list);
    },
    add: (name, record) => {
      failing.delete(key(name));
      records.set(key(name), [...(records.get(key(name)) ?? []), record]);
    },
    remove: (name) => {
      records.delete(key(name));
      failing.delete(key(name));
    },
    fail: (name) => failing.add(key(name)),
    delay: (name, ms) => {
      if (ms > 0) delays.set(key(name), ms);
      else delays.delete(key(name));
    },
    close: () =>
      new Promise<void>((resolve) => {
        udp.close();
        tcp.close(() => resolve());
      }),
  };
}
