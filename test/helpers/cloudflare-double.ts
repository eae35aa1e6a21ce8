// A local HTTP double of the few Cloudflare API v4 endpoints Tern uses (token verify, zones by name, DNS records
// list, create, update, delete), answering in Cloudflare's envelope. It keeps the zones' records and, like
// Cloudflare's own name servers, serves them: every change is mirrored into a loopback DNS server.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDnsServer, TestRecord } from './dns-server.js';

export interface DoubleToken {
  status: 'active' | 'disabled' | 'expired';
  /** The zone names the token may see; all zones when absent. */
  zones?: string[];
  /** False for a read-only token: record writes answer 403. */
  canEdit?: boolean;
}

export interface DoubleRecord {
  id: string;
  zone_id: string;
  type: 'TXT' | 'MX';
  name: string;
  content: string;
  priority?: number;
  ttl: number;
}

export interface CloudflareDouble {
  /** The API base URL, as dnsProviders.cloudflare.baseUrl takes it. */
  baseUrl: string;
  token(value: string, token: DoubleToken): void;
  /** Adds a zone; its id. */
  zone(name: string): string;
  /** Puts a record straight into a zone (what the owner had before connecting Tern); its id. */
  seed(zoneName: string, record: Omit<DoubleRecord, 'id' | 'zone_id' | 'ttl'>): string;
  /** The records at a name, in creation order. */
  recordsAt(name: string): DoubleRecord[];
  /** Every request received: method, path and query. */
  requests: Array<{ method: string; path: string }>;
  /** How many requests changed records (POST, PUT, PATCH, DELETE). */
  writes(): number;
  close(): Promise<void>;
}

const BASE = '/client/v4';
type Answer = { status: number; body: unknown };
const success = (result: unknown, extra: object = {}): Answer => ({ status: 200, body: { success: true, errors: [], messages: [], result, ...extra } });
const failure = (status: number, code: number, message: string): Answer => ({
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
});
const page = (items: unknown[]) => success(items, { result_info: { page: 1, per_page: 100, count: items.length, total_count: items.length, total_pages: 1 } });

/** The DNS answer for a record: quoted TXT content is served as its strings, as Cloudflare's servers do. */
function served(r: DoubleRecord): TestRecord {
  if (r.type === 'MX') return { type: 'MX', data: { preference: r.priority ?? 10, exchange: r.content } };
  const strings = [...r.content.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  return { type: 'TXT', data: r.content.trim().startsWith('"') && strings.length ? strings : r.content };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

type Zone = { id: string; name: string };
const newId = () => randomBytes(16).toString('hex');

/** The double's state and its answers to the endpoints, one method per endpoint group. */
class DoubleApi {
  readonly tokens = new Map<string, DoubleToken>();
  readonly zones = new Map<string, Zone>();
  readonly records = new Map<string, DoubleRecord>();

  constructor(private readonly dns: TestDnsServer | undefined) {}

  recordsAt(name: string): DoubleRecord[] {
    return [...this.records.values()].filter((r) => r.name === name.toLowerCase());
  }

  /** Serves a name's records from the DNS server, as they are now. */
  mirror(name: string): void {
    if (!this.dns) return;
    const at = this.recordsAt(name);
    if (at.length) this.dns.set(name, at.map(served));
    else this.dns.remove(name);
  }

  async route(req: IncomingMessage, url: URL): Promise<Answer> {
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const token = auth ? this.tokens.get(auth[1]!) : undefined;
    if (!token) return failure(401, 1000, 'Invalid API Token');
    const path = url.pathname.slice(BASE.length);
    if (req.method === 'GET' && path === '/user/tokens/verify') {
      return success({ id: 'tok_' + auth![1]!.slice(-6), status: token.status }, { messages: [{ code: 10000, message: 'This API Token is valid and active' }] });
    }
    if (token.status !== 'active') return failure(403, 9109, 'Unauthorized to access requested resource');
    if (req.method === 'GET' && path === '/zones') {
      const name = url.searchParams.get('name');
      return page([...this.zones.values()].filter((z) => visible(token, z.name) && (name === null || z.name === name)).map((z) => ({ ...z, status: 'active' })));
    }
    const match = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(path);
    const zone = match ? this.zones.get(match[1]!) : undefined;
    if (!match || !zone || !visible(token, zone.name)) return failure(404, 7003, 'Could not route to the requested path.');
    if (req.method === 'GET' && match[2] === undefined) return this.list(url, zone);
    if (token.canEdit === false) return failure(403, 10000, 'Authentication error');
    return this.write(req, zone, match[2]);
  }

  private list(url: URL, zone: Zone): Answer {
    if (Number(url.searchParams.get('page') ?? '1') > 1) return page([]);
    const type = url.searchParams.get('type');
    const name = url.searchParams.get('name.exact') ?? url.searchParams.get('name');
    return page([...this.records.values()].filter((r) => r.zone_id === zone.id && (!type || r.type === type) && (!name || r.name === name.toLowerCase())));
  }

  private async write(req: IncomingMessage, zone: Zone, id: string | undefined): Promise<Answer> {
    const existing = id === undefined ? undefined : this.records.get(id);
    if (id !== undefined && (!existing || existing.zone_id !== zone.id)) return failure(404, 81044, 'Record does not exist.');
    if (req.method === 'DELETE' && existing) {
      this.records.delete(existing.id);
      this.mirror(existing.name);
      return success({ id: existing.id });
    }
    if (req.method !== 'POST' && req.method !== 'PUT') return failure(405, 10405, 'Method not allowed');
    const checked = checkRecord(zone, await readJson(req));
    if ('status' in checked) return checked;
    const same = [...this.records.values()].find(
      (r) => r.id !== id && r.zone_id === zone.id && r.type === checked.type && r.name === checked.name && r.content === checked.content,
    );
    if (same) return failure(400, 81058, 'An identical record already exists.');
    const record: DoubleRecord = { ...checked, id: existing?.id ?? newId(), zone_id: zone.id };
    this.records.set(record.id, record);
    if (existing && existing.name !== record.name) this.mirror(existing.name);
    this.mirror(record.name);
    return success(record);
  }
}

const visible = (token: DoubleToken, zoneName: string) => !token.zones || token.zones.includes(zoneName);

/** A record body as Cloudflare validates it: a type Tern uses, a name inside the zone, MX with a priority. */
function checkRecord(zone: Zone, body: Record<string, unknown>): Answer | Omit<DoubleRecord, 'id' | 'zone_id'> {
  const { type, name, content, priority, ttl } = body;
  if (type !== 'TXT' && type !== 'MX') return failure(400, 9004, 'This record type is not supported by this double.');
  if (typeof name !== 'string' || !(name === zone.name || name.endsWith(`.${zone.name}`))) return failure(400, 9005, 'DNS record name is invalid or outside the zone.');
  if (typeof content !== 'string' || content === '') return failure(400, 9021, 'Invalid content for a record.');
  if (type === 'MX' && typeof priority !== 'number') return failure(400, 9100, 'MX records require a priority.');
  return { type, name: name.toLowerCase(), content, ttl: typeof ttl === 'number' ? ttl : 1, ...(type === 'MX' ? { priority: priority as number } : {}) };
}

/** Starts the double on a free loopback port; with `dns`, what it stores is served there. */
export async function startCloudflareDouble(dns?: TestDnsServer): Promise<CloudflareDouble> {
  const api = new DoubleApi(dns);
  const requests: CloudflareDouble['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://double');
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search });
    const reply = (a: Answer) => res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    if (!url.pathname.startsWith(BASE)) return reply(failure(404, 7000, 'No route for that URI'));
    api.route(req, url).then(reply, (err: Error) => reply(failure(500, 10001, err.message)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE}`,
    requests,
    token: (value, t) => void api.tokens.set(value, t),
    zone(name) {
      const id = newId();
      api.zones.set(id, { id, name });
      return id;
    },
    seed(zoneName, r) {
      const zone = [...api.zones.values()].find((z) => z.name === zoneName);
      if (!zone) throw new Error(`no zone ${zoneName}`);
      const record: DoubleRecord = { ...r, name: r.name.toLowerCase(), id: newId(), zone_id: zone.id, ttl: 1 };
      api.records.set(record.id, record);
      api.mirror(record.name);
      return record.id;
    },
    recordsAt: (name) => api.recordsAt(name),
    writes: () => requests.filter((r) => r.method !== 'GET').length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
