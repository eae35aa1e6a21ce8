// Cloudflare behind the DnsProvider interface, through Cloudflare's own client (npm `cloudflare`), at a
// configurable base URL (tests point it at a local double of the endpoints used here).
import Cloudflare, { APIError } from 'cloudflare';
import type {
  DnsProvider,
  DnsZone,
  ProviderFailure,
  ProviderRecord,
  ProviderRecordType,
  ProviderResult,
  RecordSpec,
  TokenCheck,
} from '../../shared/core/ports/dns-provider.js';
import { zoneCandidates } from './zone-candidates.js';

export interface CloudflareSettings {
  baseUrl: string;
  timeoutS: number;
  retries: number;
}

/** Cloudflare's TTL value meaning "automatic". */
const AUTO_TTL = 1;
const PAGE_SIZE = 100;

/** The fields Tern reads from any record Cloudflare returns (its typed union has one member per record type). */
interface CloudflareRecord {
  id: string;
  type: string;
  name: string;
  content?: string;
  priority?: number;
}

/** What an API error says: Cloudflare's own messages (`errors[].message`) when it gave some. */
function failureOf(err: unknown): ProviderFailure {
  if (err instanceof APIError && typeof err.status === 'number') {
    const messages = err.errors.map((e) => e.message).filter((m) => m);
    return { kind: 'refused', status: err.status, message: messages.length ? messages.join('; ') : err.message };
  }
  return { kind: 'unreachable', message: err instanceof Error ? err.message : String(err) };
}

async function attempt<T>(call: () => Promise<T>): Promise<ProviderResult<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    return { ok: false, failure: failureOf(err) };
  }
}

function toRecord(r: CloudflareRecord): ProviderRecord {
  const type = r.type as ProviderRecordType;
  const base = { id: r.id, type, name: r.name.toLowerCase(), content: r.content ?? '' };
  return r.priority === undefined ? base : { ...base, priority: r.priority };
}

/** The body of a create or update: Cloudflare's record shape for the type. */
function body(zone: DnsZone, r: RecordSpec) {
  return r.type === 'MX'
    ? { zone_id: zone.id, type: 'MX' as const, name: r.name, content: r.content, priority: r.priority ?? 10, ttl: AUTO_TTL }
    : { zone_id: zone.id, type: 'TXT' as const, name: r.name, content: r.content, ttl: AUTO_TTL };
}

export class CloudflareProvider implements DnsProvider {
  readonly name = 'cloudflare' as const;
  private readonly client: Cloudflare;

  constructor(settings: CloudflareSettings, apiToken: string) {
    // The other credentials are set to null so that CLOUDFLARE_* variables of the process are never sent.
    this.client = new Cloudflare({
      apiToken,
      apiKey: null,
      apiEmail: null,
      userServiceKey: null,
      baseURL: settings.baseUrl,
      timeout: settings.timeoutS * 1000,
      maxRetries: settings.retries,
    });
  }

  verifyToken(): Promise<ProviderResult<TokenCheck>> {
    return attempt(async () => {
      const token = await this.client.user.tokens.verify();
      return { active: token.status === 'active', status: token.status };
    });
  }

  async zoneOf(domainName: string): Promise<ProviderResult<DnsZone | null>> {
    for (const candidate of zoneCandidates(domainName)) {
      const found = await attempt(async () => (await this.client.zones.list({ name: candidate, per_page: 5 })).result);
      if (!found.ok) return found;
      const zone = found.value.find((z) => z.name.toLowerCase() === candidate);
      if (zone) return { ok: true, value: { id: zone.id, name: candidate } };
    }
    return { ok: true, value: null };
  }

  zones(limit: number): Promise<ProviderResult<DnsZone[]>> {
    return attempt(async () => {
      const page = await this.client.zones.list({ per_page: Math.min(limit, 50) });
      return page.result.slice(0, limit).map((z) => ({ id: z.id, name: z.name.toLowerCase() }));
    });
  }

  records(zone: DnsZone, type: ProviderRecordType, name: string): Promise<ProviderResult<ProviderRecord[]>> {
    return attempt(async () => {
      const found: ProviderRecord[] = [];
      for await (const r of this.client.dns.records.list({ zone_id: zone.id, type, name: { exact: name }, per_page: PAGE_SIZE })) {
        found.push(toRecord(r));
      }
      return found;
    });
  }

  create(zone: DnsZone, record: RecordSpec): Promise<ProviderResult<ProviderRecord>> {
    return attempt(async () => toRecord((await this.client.dns.records.create(body(zone, record))) as CloudflareRecord));
  }

  update(zone: DnsZone, id: string, record: RecordSpec): Promise<ProviderResult<ProviderRecord>> {
    return attempt(async () => toRecord((await this.client.dns.records.update(id, body(zone, record))) as CloudflareRecord));
  }

  remove(zone: DnsZone, id: string): Promise<ProviderResult<void>> {
    return attempt(async () => {
      await this.client.dns.records.delete(id, { zone_id: zone.id });
    });
  }
}
