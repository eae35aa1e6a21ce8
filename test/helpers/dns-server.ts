// A real DNS server on loopback whose records a test sets (the harness's, shared with the benchmarks), and a
// domain's records published in it as whoever runs the domain's zone would publish them.
import type { TestDnsServer } from '../harness/dns-server.js';

export { startDnsServer, type TestDnsServer, type TestRecord } from '../harness/dns-server.js';

/** A domain's records as the dashboard and /v2 answer them. */
export interface ShownRecords {
  domain_name: string;
  dns_records: { dkim: { name: string; content: string }; spf: ReadonlyArray<{ type: string; name: string; content: string; priority?: string | number }> };
}

/** Publishes the DKIM record, and the SPF and MX records beside whatever the name already holds. */
export function publishRecords(server: TestDnsServer, d: ShownRecords): void {
  server.set(`${d.dns_records.dkim.name}.${d.domain_name}`, [{ type: 'TXT', data: d.dns_records.dkim.content }]);
  for (const r of d.dns_records.spf) {
    const record = r.type === 'MX' ? { type: 'MX' as const, data: { preference: Number(r.priority), exchange: r.content } } : { type: 'TXT' as const, data: r.content };
    server.add(`${r.name}.${d.domain_name}`, record);
  }
}
