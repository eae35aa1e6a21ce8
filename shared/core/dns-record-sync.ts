// Makes one of a domain's records present in its provider's zone, idempotently: a record that already does the
// job (by the rule the domain check applies) is left alone, one that holds another value is updated in place,
// and only a missing one is created. Where DNS allows one record of a kind (DKIM at Tern's selector name, SPF
// at the return path), extra ones are deleted, since they would break the check.
import type { DnsProvider, DnsZone, ProviderRecord, ProviderResult, RecordSpec } from './ports/dns-provider.js';
import { bareHost, dkimCarriesKey, isSpf, spfIncludes } from '../dns-records.js';

export type RecordChange = 'created' | 'updated' | 'unchanged';

export interface WantedRecord {
  /** Which of the domain's records this is. */
  role: 'dkim' | 'return_path_mx' | 'spf';
  spec: RecordSpec;
  /** The records of the same name and type that fill this record's place (the others are not Tern's). */
  occupies: (value: string) => boolean;
  /** Whether a record in that place already does the job. */
  satisfied: (r: ProviderRecord, value: string) => boolean;
  /** Only one record of this kind may exist at the name. */
  unique: boolean;
}

export interface SyncedRecord extends RecordSpec {
  role: WantedRecord['role'];
  result: RecordChange;
}

/** The value a zone editor shows for a TXT record: Cloudflare may show it quoted, and split into 255-byte strings. */
export function txtValue(content: string): string {
  const quoted = content.trim();
  if (!quoted.startsWith('"')) return content;
  const parts = [...quoted.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  return parts.length ? parts.join('') : content;
}

const valueOf = (r: ProviderRecord): string => (r.type === 'TXT' ? txtValue(r.content) : r.content);

/** What the domain's three records are, and how an existing record is judged. */
export function wantedRecords(records: { dkim: RecordSpec; mx: RecordSpec; spf: RecordSpec }, publicKey: string, host: string): WantedRecord[] {
  return [
    { role: 'dkim', spec: records.dkim, occupies: () => true, satisfied: (r) => dkimCarriesKey(valueOf(r), publicKey), unique: true },
    { role: 'return_path_mx', spec: records.mx, occupies: () => true, satisfied: (r) => bareHost(r.content) === bareHost(host), unique: false },
    { role: 'spf', spec: records.spf, occupies: isSpf, satisfied: (r) => spfIncludes(valueOf(r), host), unique: true },
  ];
}

/** Brings one record to its wanted state; the first provider failure stops it and is answered as is. */
export async function syncRecord(provider: DnsProvider, zone: DnsZone, want: WantedRecord): Promise<ProviderResult<SyncedRecord>> {
  const listed = await provider.records(zone, want.spec.type, want.spec.name);
  if (!listed.ok) return listed;
  const existing = listed.value.filter((r) => want.occupies(valueOf(r)));
  const keep = existing.find((r) => want.satisfied(r, valueOf(r))) ?? existing[0];
  const extras = want.unique ? existing.filter((r) => r !== keep) : [];
  for (const extra of extras) {
    const removed = await provider.remove(zone, extra.id);
    if (!removed.ok) return removed;
  }
  let result: RecordChange = extras.length > 0 ? 'updated' : 'unchanged';
  if (!keep || !want.satisfied(keep, valueOf(keep))) {
    const written = keep ? await provider.update(zone, keep.id, want.spec) : await provider.create(zone, want.spec);
    if (!written.ok) return written;
    result = keep ? 'updated' : 'created';
  }
  return { ok: true, value: { ...want.spec, role: want.role, result } };
}
