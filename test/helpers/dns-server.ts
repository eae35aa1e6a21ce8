// A real DNS server on loopback whose records a test sets (the harness's, shared with the benchmarks).
export { startDnsServer, type TestDnsServer, type TestRecord } from '../../harness/dns-server.js';
