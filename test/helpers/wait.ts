// Waiting in tests for something the system does on its own time (a delivery, a webhook, a suspension).

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a truthy value, and returns that value; fails naming `what` after the timeout. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}
