// The customer screens' filter building and the DYNAMIC rule editor's mapping of the API's verdict (pure, no browser).
import { describe, expect, it } from 'vitest';
import { ApiError } from '@siteplatform/sdk';
import { afterIdOf, customerFilter, quote, ruleVerdict } from '../../admin/src/areas/customers/rule.js';


const ruleError = (description: string) =>
  new ApiError({ code: 400, status: 'INVALID_ARGUMENT', message: 'invalid', details: [{ type: 'FIELD_VIOLATION', field: 'rule', description }] } as never);

describe('customer list filter', () => {
  it('quotes values with backslash escapes', () => {
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('joins the chosen filters with AND, search over email or name', () => {
    expect(customerFilter({})).toBeUndefined();
    expect(customerFilter({ q: 'Ann', group: 'g1', tag: 'vip', active: 'true' })).toBe('(email:"ann" OR display_name:"Ann") AND group_ids:"g1" AND tags:"vip" AND is_active = true');
  });

  it('turns joined-from/until days into create_time bounds (until is inclusive)', () => {
    const f = customerFilter({ created_from: '2026-03-01', created_to: '2026-03-31' })!;
    expect(f).toBe(`create_time >= "${new Date(2026, 2, 1).toISOString()}" AND create_time < "${new Date(2026, 3, 1).toISOString()}"`);
    expect(customerFilter({ created_from: 'nonsense' })).toBeUndefined();
  });
});

describe('rule verdict', () => {
  it('is empty without a rule and valid when the API accepted it', () => {
    expect(ruleVerdict('  ', undefined)).toEqual({ state: 'empty' });
    expect(ruleVerdict('tags:"vip"', undefined)).toEqual({ state: 'valid' });
  });

  it('shows the API’s description of the rule as a sentence, with the offset it names', () => {
    expect(ruleVerdict('tags:', ruleError('expected a value, got end of input at offset 5'))).toEqual({ state: 'invalid', message: 'Expected a value, got end of input at offset 5.', offset: 5 });
    expect(ruleVerdict('phone = 1', ruleError('phone is not a filterable field (a rule may use email, tags, create_time)'))).toMatchObject({ state: 'invalid', message: 'Phone is not a filterable field (a rule may use email, tags, create_time).' });
  });

  it('does not blame the rule for other failures', () => {
    expect(ruleVerdict('tags:"x"', new ApiError({ code: 503, status: 'UNAVAILABLE', message: 'try later', details: [] } as never))).toEqual({ state: 'unknown', message: 'try later' });
  });

  it('moves after the item now before it, or first', () => {
    expect(afterIdOf(['a', 'b', 'c'], 0)).toBeNull();
    expect(afterIdOf(['a', 'b', 'c'], 2)).toBe('b');
  });
});
