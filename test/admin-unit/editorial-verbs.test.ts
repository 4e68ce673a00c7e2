// The verbs a calendar entry offers in each state (admin/src/areas/editorial/verbs.ts), the days of
// the week and month views, and money as shown.
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { calendarDays } from '../../admin/src/areas/editorial/calendar-days.js';
import { entryVerbs, formatMoney } from '../../admin/src/areas/editorial/verbs.js';
import { groupSettings, humanize, sameValue } from '../../admin/src/areas/settings/settings-model.js';

const open = { review_agent_id: 'rev', require_passing_verdict: false, allow_person_approval: true };

describe('editorial calendar', () => {
  it('offers exactly the verbs each state allows', () => {
    expect(entryVerbs({ state: 'PLANNED' }, open)).toEqual(['materialize']);
    expect(entryVerbs({ state: 'DRAFTING', post_id: 'p' }, open)).toEqual([]);
    expect(entryVerbs({ state: 'DRAFTED', post_id: 'p' }, open)).toEqual(['review', 'approve', 'reject', 'publish', 'materialize']);
    expect(entryVerbs({ state: 'IN_REVIEW', post_id: 'p' }, open)).toEqual([]);
    expect(entryVerbs({ state: 'APPROVED', post_id: 'p' }, open)).toEqual(['publish', 'reject', 'review', 'materialize']);
    expect(entryVerbs({ state: 'REJECTED', post_id: 'p' }, open)).toEqual(['review', 'approve', 'materialize']);
    expect(entryVerbs({ state: 'FAILED' }, open)).toEqual(['retry', 'materialize']);
    expect(entryVerbs({ state: 'SCHEDULED', post_id: 'p' }, open)).toEqual([]);
    expect(entryVerbs({ state: 'PUBLISHED', post_id: 'p' }, open)).toEqual([]);
  });

  it('hides verbs the plan would refuse: review without a review agent, approval where a verdict is required, publishing an unreviewed draft', () => {
    const strict = { review_agent_id: null, require_passing_verdict: true, allow_person_approval: false };
    expect(entryVerbs({ state: 'DRAFTED', post_id: 'p' }, strict)).toEqual(['reject', 'materialize']);
    expect(entryVerbs({ state: 'REJECTED', post_id: 'p' }, strict)).toEqual(['materialize']);
  });

  it('week view: Monday to Sunday; month view: whole weeks around the month', () => {
    const week = calendarDays(dayjs('2026-11-27T12:00:00'), 'week').map((d) => d.date.format('ddd D'));
    expect(week).toEqual(['Mon 23', 'Tue 24', 'Wed 25', 'Thu 26', 'Fri 27', 'Sat 28', 'Sun 29']);
    const month = calendarDays(dayjs('2026-11-27T12:00:00'), 'month');
    expect(month.length % 7).toBe(0);
    expect(month[0].date.format('YYYY-MM-DD')).toBe('2026-10-26');
    expect(month[month.length - 1].date.format('YYYY-MM-DD')).toBe('2026-12-06');
    expect(month.filter((d) => d.inMonth)).toHaveLength(30);
  });

  it('shows money with cents, or four digits below a cent', () => {
    expect(formatMoney({ units: '12', nanos: 340000000, currency_code: 'USD' })).toBe('$12.34');
    expect(formatMoney({ units: '0', nanos: 1_200_000, currency_code: 'USD' })).toBe('$0.0012');
    expect(formatMoney(undefined)).toBeUndefined();
  });
});

describe('settings', () => {
  it('groups descriptors by the sections of their dotted path', () => {
    const groups = groupSettings([{ id: 'seo.robots.index' }, { id: 'general.site.name' }, { id: 'general.web.custom_domain' }, { id: 'general.site.tagline' }]);
    expect(groups.map((g) => [g.section, g.subsections.map((s) => [s.name, s.descriptors.map((d) => d.id)])])).toEqual([
      ['general', [['site', ['general.site.name', 'general.site.tagline']], ['web', ['general.web.custom_domain']]]],
      ['seo', [['robots', ['seo.robots.index']]]],
    ]);
  });

  it('names path segments for people: words, acronyms, file names', () => {
    expect(humanize('default_title_suffix')).toBe('Default title suffix');
    expect(humanize('seo')).toBe('SEO');
    expect(humanize('api_catalog')).toBe('API catalog');
    expect(humanize('llms_txt')).toBe('llms.txt');
  });

  it('compares values, lists by their items', () => {
    expect(sameValue(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameValue(['a'], ['a', 'b'])).toBe(false);
    expect(sameValue(null, undefined)).toBe(true);
    expect(sameValue(1, 1)).toBe(true);
  });
});
