// The dashboard's period controls → `analytics:query` fields in the website's time zone
// (admin/src/areas/analytics/date-range.ts), and the AI balance's money arithmetic.
import { describe, expect, it } from 'vitest';
import { applyRange, percentChange, rangeQuery, todayIn, validateRangeSearch, widgetKind } from '../../admin/src/areas/analytics/date-range.js';
import { formatMoney, parseDollars } from '../../admin/src/areas/billing/money.js';
import { dailyUsage } from '../../admin/src/areas/billing/usage.js';

// 2026-11-27 23:30 UTC: already the 28th in Berlin, still the 27th in New York.
const NOW = new Date('2026-11-27T23:30:00Z');

describe('period controls in the site’s time zone', () => {
  it('today is the site’s local date, not the browser’s', () => {
    expect(todayIn('Europe/Berlin', NOW)).toBe('2026-11-28');
    expect(todayIn('America/New_York', NOW)).toBe('2026-11-27');
    expect(todayIn('UTC', NOW)).toBe('2026-11-27');
  });

  it('a preset goes as it is, with the previous period by default', () => {
    expect(rangeQuery({ range: '7d' }, 'Europe/Berlin', NOW)).toEqual({ query: { date_range: '7d', compare: 'previous_period' } });
    expect(rangeQuery({}, 'Europe/Berlin', NOW)).toEqual({ query: { date_range: '30d', compare: 'previous_period' } });
    expect(rangeQuery({ range: 'month', compare: 'none' }, 'UTC', NOW)).toEqual({ query: { date_range: 'month' } });
    expect(rangeQuery({ range: '12mo', compare: 'year_over_year' }, 'UTC', NOW).query).toEqual({ date_range: '12mo', compare: 'year_over_year' });
  });

  it('a custom range sends its local dates; one ending on the site’s today is allowed where the browser is a day behind', () => {
    expect(rangeQuery({ range: 'custom', from: '2026-11-01', to: '2026-11-28', compare: 'none' }, 'Europe/Berlin', NOW)).toEqual({
      query: { date_range: 'custom', start_date: '2026-11-01', end_date: '2026-11-28' },
    });
    const ny = rangeQuery({ range: 'custom', from: '2026-11-01', to: '2026-11-28' }, 'America/New_York', NOW);
    expect(ny.error).toBe('The last day can be today (2026-11-27) at the latest.');
    expect(ny.query).toEqual({ date_range: '30d', compare: 'previous_period' });
  });

  it('an incomplete, reversed or too long custom range says why and keeps the default period', () => {
    expect(rangeQuery({ range: 'custom', from: '2026-11-01' }, 'UTC', NOW).error).toBe('Choose the first and the last day.');
    expect(rangeQuery({ range: 'custom', from: '2026-11-10', to: '2026-11-01' }, 'UTC', NOW).error).toBe('The first day must not be after the last day.');
    expect(rangeQuery({ range: 'custom', from: '2024-01-01', to: '2026-01-02' }, 'UTC', NOW).error).toBe('A range covers at most 731 days.');
    expect(rangeQuery({ range: 'custom', from: '2024-01-02', to: '2026-01-01' }, 'UTC', NOW).error).toBeUndefined();
  });

  it('the URL’s values are kept only when well formed', () => {
    expect(validateRangeSearch({ range: 'custom', from: '2026-11-01', to: 'soon', compare: 'none', extra: 1 })).toEqual({ range: 'custom', from: '2026-11-01', compare: 'none' });
    expect(validateRangeSearch({ range: '90d', compare: 'last_week' })).toEqual({});
  });

  it('a widget’s query takes the page’s period; breakdown tables take no comparison', () => {
    const range = { date_range: 'custom' as const, start_date: '2026-11-01', end_date: '2026-11-07', compare: 'previous_period' as const };
    const table = { metrics: ['visitors'], date_range: '30d', dimensions: ['page'], limit: 10 };
    expect(applyRange(table, range, widgetKind(table))).toEqual({ metrics: ['visitors'], dimensions: ['page'], limit: 10, date_range: 'custom', start_date: '2026-11-01', end_date: '2026-11-07' });
    const graph = { metrics: ['visitors'], date_range: '30d', interval: 'day' };
    expect(applyRange(graph, { date_range: '7d' }, widgetKind(graph))).toEqual({ metrics: ['visitors'], interval: 'day', date_range: '7d' });
    expect(widgetKind({ metrics: ['visits'], compare: 'previous_period' })).toBe('number');
  });

  it('the change against the comparison is a percentage with one decimal, none from zero', () => {
    expect(percentChange(150, 100)).toBe(50);
    expect(percentChange(1, 3)).toBe(-66.7);
    expect(percentChange(5, 0)).toBeUndefined();
  });
});

describe('AI money', () => {
  it('shows fractions of a cent as they are and parses typed dollars exactly', () => {
    expect(formatMoney({ units: '0', nanos: 21_750_000 })).toBe('$0.02175');
    expect(formatMoney({ units: '1234', nanos: 500_000_000 })).toBe('$1,234.50');
    expect(formatMoney({ units: '0', nanos: -21_750_000 })).toBe('-$0.02175');
    expect(formatMoney({ units: '-2', nanos: -500_000_000 })).toBe('-$2.50');
    expect(parseDollars('12.5')).toEqual({ currency_code: 'USD', units: '12', nanos: 500_000_000 });
    expect(parseDollars('0.000001')).toEqual({ currency_code: 'USD', units: '0', nanos: 1000 });
    expect(parseDollars('12,5')).toBeUndefined();
  });

  it('usage is summed per UTC day, days without usage at zero', () => {
    const days = dailyUsage(
      [
        { create_time: '2026-11-26T10:00:00Z', input_tokens: 10, output_tokens: 5, cost: { units: '0', nanos: 1000 } },
        { create_time: '2026-11-26T23:59:00Z', input_tokens: 1, output_tokens: 1 },
        { create_time: '2026-11-20T00:00:00Z', input_tokens: 99 },
      ],
      '2026-11-25',
      '2026-11-27',
    );
    expect(days.map((d) => [d.day, d.attempts, d.tokens, Number(d.costNanos)])).toEqual([
      ['2026-11-25', 0, 0, 0],
      ['2026-11-26', 2, 17, 1000],
      ['2026-11-27', 0, 0, 0],
    ]);
  });
});
