// The node options Tern's long-running processes are started with: by `ternmail start`, by the systemd
// units (their ExecStart spells the same flags; a test keeps the two in step) and by the benchmarks.
//
// A larger young generation: sending allocates many short-lived objects per request (JSON, MIME parts,
// SQL rows), and with V8's default semi-space (16 MB) the scavenges ran often enough to be the tail of the
// latency. Measured with bench/http-send on 2 cores: 1,436 → 1,806 requests/s, p99 67 → 49 ms (API alone).
// It is an upper bound: the young generation grows to it only under that allocation rate.
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
