// Time as the product writes it: ISO 8601 UTC, the interface's display form, and UTC day boundaries.
export const nowIso = (): string => new Date().toISOString();

/** The specification's `<YYYY-MM-DD HH:MM:SS>` form, in UTC. */
export function toDisplayDateTime(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

export const utcDay = (date = new Date()): string => date.toISOString().slice(0, 10);

export function secondsUntilNextUtcDay(date = new Date()): number {
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - date.getTime()) / 1000));
}
