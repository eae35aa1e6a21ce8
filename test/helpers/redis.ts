// A real redis-server for one test file (the harness's, shared with the benchmarks), and free ports.
export { startRedis, type TestRedis } from '../harness/redis.js';
export { freePort } from '../harness/ports.js';
