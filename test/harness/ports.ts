// Free loopback ports for what a test or a benchmark starts (Redis, DNS, SMTP and HTTP listeners).
import { createServer } from 'node:net';

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on, picked below the kernel's ephemeral range (32768 and up): a port the kernel
 * handed out for listen(0) may be given to an outgoing connection before the test binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await bindable(port, '0.0.0.0')) && (await bindable(port, '127.0.0.1'))) return port;
  }
}

/** `n` different free ports (two calls to freePort may pick the same one, as nothing binds it in between). */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
