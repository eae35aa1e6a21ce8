// How a period of created_at is read from the counters: its whole UTC days from recipient_counts, its whole
// hours from recipient_counts_hourly (migration 31), and only the parts of an hour its bounds cut into from the
// messages themselves (an index range) and their recipients, so that no count reads more than two hours of messages.
// The message log's total is read the same way by day: whole days from message_counts, the days its bounds cut into
// from the messages (daySpan).

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

export interface DaySpan {
  /** Comparisons of message_counts.day that keep the whole UTC days within the bounds. */
  wholeDays: Array<{ op: '>' | '>=' | '<' | '<='; day: string }>;
  /** The days a bound cuts into, each narrowed to the bounds; the index answers them. */
  cut: Array<{ from: string; to: string }>;
}

const dayOf = (iso: string): string => iso.slice(0, 10);
const startOf = (day: string): string => `${day}T00:00:00.000Z`;
const endOf = (day: string): string => `${day}T23:59:59.999Z`;

/** Splits inclusive created_at bounds into whole days and the (at most two) days they cut into. */
export function daySpan(from: string | undefined, to: string | undefined): DaySpan {
  const cutFrom = from !== undefined && from > startOf(dayOf(from)) ? dayOf(from) : undefined;
  const cutTo = to !== undefined && to < endOf(dayOf(to)) ? dayOf(to) : undefined;
  const cutDays = [...new Set([cutFrom, cutTo])].filter((day): day is string => day !== undefined);
  const wholeDays: DaySpan['wholeDays'] = [];
  // A cut day is counted apart, so the whole days start after it (end before it): no date arithmetic needed.
  if (from !== undefined) wholeDays.push(cutFrom ? { op: '>', day: cutFrom } : { op: '>=', day: dayOf(from) });
  if (to !== undefined) wholeDays.push(cutTo ? { op: '<', day: cutTo } : { op: '<=', day: dayOf(to) });
  return {
    wholeDays,
    // Narrowed to both bounds, so a day cut at both ends, or bounds the wrong way round, count only what is inside.
    cut: cutDays.map((day) => ({
      from: from !== undefined && from > startOf(day) ? from : startOf(day),
      to: to !== undefined && to < endOf(day) ? to : endOf(day),
    })),
  };
}
