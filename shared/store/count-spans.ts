// How a period of created_at is read from the counters: its whole UTC days from recipient_counts, its whole
// hours from recipient_counts_hourly (migration 31), and only the parts of an hour its bounds cut into from the
// messages themselves (an index range) and their recipients, so that no count reads more than two hours of messages.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Where one piece of a period is counted from, with its inclusive bounds in that source's own keys. */
export type Span =
  /** created_at bounds, ISO 8601 with milliseconds. */
  | { source: 'messages'; from: string; to: string }
  /** recipient_counts_hourly.hour bounds, "YYYY-MM-DDTHH". */
  | { source: 'hours'; from: string; to: string }
  /** recipient_counts.day bounds, "YYYY-MM-DD". */
  | { source: 'days'; from: string; to: string };

const iso = (ms: number) => new Date(ms).toISOString();
const hourKey = (ms: number) => iso(ms).slice(0, 13);
const dayKey = (ms: number) => iso(ms).slice(0, 10);
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/** The whole hours [a, b) (both on the hour), as whole days where `days` allows and hours around them. */
function wholeHours(a: number, b: number, days: boolean): Span[] {
  const dA = ceilTo(a, DAY);
  const dB = floorTo(b, DAY);
  if (!days || dA >= dB) return [{ source: 'hours', from: hourKey(a), to: hourKey(b - HOUR) }];
  const spans: Span[] = [];
  if (a < dA) spans.push({ source: 'hours', from: hourKey(a), to: hourKey(dA - HOUR) });
  spans.push({ source: 'days', from: dayKey(dA), to: dayKey(dB - DAY) });
  if (dB < b) spans.push({ source: 'hours', from: hourKey(dB), to: hourKey(b - HOUR) });
  return spans;
}

/**
 * The spans of the inclusive created_at bounds `from`..`to` (ISO 8601 UTC with milliseconds). Day counters
 * are used only when `days` is true: a count by hour cannot read them.
 */
export function countSpans(from: string, to: string, days: boolean): Span[] {
  const a = Date.parse(from);
  const b = Date.parse(to) + 1; // exclusive from here on
  if (!(a < b)) return [];
  const hA = ceilTo(a, HOUR);
  const hB = floorTo(b, HOUR);
  if (hA >= hB) return [{ source: 'messages', from, to }];
  const spans: Span[] = [];
  if (a < hA) spans.push({ source: 'messages', from, to: iso(hA - 1) });
  spans.push(...wholeHours(hA, hB, days));
  if (hB < b) spans.push({ source: 'messages', from: iso(hB), to });
  return spans;
}
