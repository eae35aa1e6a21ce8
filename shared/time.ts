export const nowIso = (): string => new Date().toISOString();

/** The seed's `<YYYY-MM-DD HH:MM:SS>` form, in UTC. */
export function toSeedDateTime(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

/** ISO 8601 UTC without milliseconds (`2026-01-02T03:04:05Z`). */
export function toIsoSeconds(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}

export const utcDay = (date = new Date()): string => date.toISOString().slice(0, 10);

export function secondsUntilNextUtcDay(date = new Date()): number {
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - date.getTime()) / 1000));
}
