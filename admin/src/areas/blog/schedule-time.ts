/**
 * Publish times in the website's time zone (what the schedule picker shows) and in the person's
 * own zone. Pure (unit-tested in test/admin-unit/editor-logic.test.ts).
 */
import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc.js';
import timezone from 'dayjs/plugin/timezone.js';
import customParseFormat from 'dayjs/plugin/customParseFormat.js';

dayjs.extend(customParseFormat);
dayjs.extend(utc);
dayjs.extend(timezone);

/** `2026-03-29`, `02:30` in `Europe/Berlin` → the UTC instant (RFC 3339); a wall time the clocks skip moves forward. */
export function zonedToUtc(date: string, time: string, zone: string): string {
  return dayjs.tz(`${date} ${time}`, 'YYYY-MM-DD HH:mm', zone).utc().format('YYYY-MM-DDTHH:mm:ss[Z]');
}

/** The wall date (`YYYY-MM-DD`) and time (`HH:mm`) of an instant in `zone`. */
export function utcToZoned(iso: string, zone: string): { date: string; time: string } {
  const d = dayjs(iso).tz(zone);
  return { date: d.format('YYYY-MM-DD'), time: d.format('HH:mm') };
}

/** `27 Nov 2026, 14:05 (Europe/Berlin)`: an instant as a zone's clock shows it. */
export function formatInZone(iso: string, zone: string | undefined, locale?: string): string {
  const text = new Intl.DateTimeFormat(locale, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  return `${text} (${zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone})`;
}

/** The person's own time zone (the browser's). */
export const ownZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
