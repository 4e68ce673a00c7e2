/** The days a calendar view shows (pure: tested in test/admin-unit/editorial-verbs.test.ts). Weeks start on Monday. */
import type { Dayjs } from 'dayjs';

export type CalendarMode = 'week' | 'month';

/** Monday of `date`'s week. */
export const weekStart = (date: Dayjs): Dayjs => date.startOf('day').subtract((date.day() + 6) % 7, 'day');

/** Week: its 7 days. Month: whole weeks from the Monday on or before the 1st to the Sunday on or after the last day. */
export function calendarDays(anchor: Dayjs, mode: CalendarMode): Array<{ date: Dayjs; inMonth: boolean }> {
  if (mode === 'week') {
    const start = weekStart(anchor);
    return Array.from({ length: 7 }, (_, i) => ({ date: start.add(i, 'day'), inMonth: true }));
  }
  const first = anchor.startOf('month');
  const start = weekStart(first);
  const end = anchor.endOf('month');
  const out: Array<{ date: Dayjs; inMonth: boolean }> = [];
  for (let d = start; d.isBefore(end) || out.length % 7 !== 0; d = d.add(1, 'day')) out.push({ date: d, inMonth: d.month() === first.month() });
  return out;
}
