/**
 * Calendar slot times: a weekly cadence of local times (weekday + `HH:MM`) read in an IANA time
 * zone, turned into UTC instants with the built-in `Intl` (the platform's Node ships full ICU), DST
 * included. A local time that does not exist (the hour skipped when clocks go forward) moves forward
 * by the gap (02:30 → 03:30), as luxon and Temporal's "compatible" disambiguation do; a local time
 * that happens twice (clocks go back) is its first occurrence.
 */

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export interface Slot {
  weekday: Weekday;
  time: string;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** An IANA zone `Intl` knows, in canonical case, or undefined. */
export function knownTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The wall clock of `zone` at `instant`, as if it were UTC (ms). */
function wallClock(zone: string, instant: number): number {
  const parts = Object.fromEntries(formatter(zone).formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** Offset of `zone` from UTC at `instant` (ms, positive east of Greenwich). */
function offsetAt(zone: string, instant: number): number {
  return wallClock(zone, Math.floor(instant / 1000) * 1000) - Math.floor(instant / 1000) * 1000;
}

/** The UTC instant of a local wall-clock time (given as if UTC) in `zone`. */
export function instantOf(zone: string, local: number): number {
  // The offsets on both sides of the candidate: equal except around a transition.
  const before = offsetAt(zone, local - DAY_MS);
  const after = offsetAt(zone, local + DAY_MS);
  const earlier = local - before;
  const later = local - after;
  const fits = (t: number) => wallClock(zone, t) === local;
  if (before === after) return earlier;
  // Clocks went back: both fit, the first occurrence wins. Went forward: neither fits; the time
  // moves on by the gap (the pre-transition offset applied).
  if (fits(earlier) && fits(later)) return Math.min(earlier, later);
  if (fits(earlier)) return earlier;
  if (fits(later)) return later;
  return earlier;
}

/**
 * Every slot instant in [from, until) of the cadence in `zone`, ascending. Bounded by the caller
 * (horizon ≤ 365 days, ≤ 24 × 7 slots a week).
 */
export function slotTimes(slots: readonly Slot[], zone: string, from: number, until: number): number[] {
  if (slots.length === 0) return [];
  const out = new Set<number>();
  // Local calendar days from the day before `from` (its zone may be behind UTC) to the day after `until`.
  const firstDay = Math.floor((wallClock(zone, from) - DAY_MS) / DAY_MS) * DAY_MS;
  const lastDay = Math.floor((wallClock(zone, until) + DAY_MS) / DAY_MS) * DAY_MS;
  for (let day = firstDay; day <= lastDay; day += DAY_MS) {
    // 1970-01-01 was a Thursday: index 3 of WEEKDAYS.
    const weekday = WEEKDAYS[(Math.floor(day / DAY_MS) + 3) % 7];
    for (const slot of slots) {
      if (slot.weekday !== weekday) continue;
      const [h, m] = slot.time.split(':').map(Number);
      const instant = instantOf(zone, day + h * 3_600_000 + m * 60_000);
      if (instant >= from && instant < until) out.add(instant);
    }
  }
  return [...out].sort((a, b) => a - b);
}
