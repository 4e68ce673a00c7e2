/** Usage records → daily totals for the usage chart (pure). */
import { moneyToNanos } from './money.js';

export interface UsageLike {
  create_time: string;
  input_tokens?: number;
  output_tokens?: number;
  cost?: { units: string; nanos: number };
}

export interface DailyUsage {
  day: string;
  costNanos: bigint;
  tokens: number;
  attempts: number;
}

/** One entry per UTC day from `from` to `to` (inclusive, `YYYY-MM-DD`), days without usage at zero. */
export function dailyUsage(records: readonly UsageLike[], from: string, to: string): DailyUsage[] {
  const days = new Map<string, DailyUsage>();
  for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1)) {
    const day = d.toISOString().slice(0, 10);
    days.set(day, { day, costNanos: 0n, tokens: 0, attempts: 0 });
  }
  for (const r of records) {
    const entry = days.get(r.create_time.slice(0, 10));
    if (!entry) continue;
    entry.attempts += 1;
    entry.tokens += (r.input_tokens ?? 0) + (r.output_tokens ?? 0);
    if (r.cost) entry.costNanos += moneyToNanos(r.cost);
  }
  return [...days.values()];
}
