// The node options and environment Tern's long-running processes are started with: by `ternmail start`, by the
// systemd units (their ExecStart and Environment spell the same; a test keeps them in step) and by the benchmarks.
//
// A larger young generation: sending allocates many short-lived objects per request (JSON, MIME parts,
// SQL rows), and with V8's default semi-space (16 MB) the scavenges ran often enough to be the tail of the
// latency. Measured with bench/http-send on 2 cores: 1,436 → 1,806 requests/s, p99 67 → 49 ms (API alone).
// It is an upper bound, reached only under that allocation rate. The MTA takes half: its SMTP figures
// barely move with it, and its memory with 100,000 messages queued (bench/memory) must stay well under 300 MB
// (252 MB at 64 MB).
const SEMI_SPACE_MB = { api: 64, mta: 32 } as const;

export function serviceNodeFlags(role: 'api' | 'mta'): string[] {
  return [`--max-semi-space-size=${SEMI_SPACE_MB[role]}`];
}

/**
 * fsyncs, SQLite statements and RSA signatures all run on libuv's thread pool, where 4 threads queue them up.
 * libuv sizes the pool when it is first used, and loading an ES module already uses it: the size only holds when
 * it is in the environment the process starts with, so the starter sets it (an operator's own value stays).
 */
export function serviceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, UV_THREADPOOL_SIZE: env.UV_THREADPOOL_SIZE ?? '16' };
}
