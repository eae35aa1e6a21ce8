// Readiness decided from probe results: each part a process depends on is probed at once, under one time
// limit, and the process is ready only when every part answered. /readyz on both ports and `ternmail status`
// read the same verdict.

/** The parts a process may depend on; the MTA adds its SMTP listeners to the store and Redis. */
export const READINESS_PARTS = ['store', 'redis', 'listeners'] as const;
export type ReadinessPart = (typeof READINESS_PARTS)[number];

export type Readiness = { ready: true } | { ready: false; failing: ReadinessPart[] };

/** Resolves true when the part answers; false, a rejection or no answer within the limit all count as failing. */
export type Probe = () => Promise<boolean>;

export type Probes = Partial<Record<ReadinessPart, Probe>>;

/** Whether `probe` answered true within `timeoutMs`; what it does after the limit is ignored. */
export async function answersWithin(probe: Probe, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([probe().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every probe concurrently; the failing parts are listed in the order of READINESS_PARTS. */
export async function decideReadiness(probes: Probes, timeoutMs: number): Promise<Readiness> {
  const parts = READINESS_PARTS.filter((part) => probes[part] !== undefined);
  const answers = await Promise.all(parts.map((part) => answersWithin(probes[part]!, timeoutMs)));
  const failing = parts.filter((_, i) => !answers[i]);
  return failing.length === 0 ? { ready: true } : { ready: false, failing };
}
