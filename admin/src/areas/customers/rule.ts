/**
 * Customer filters and DYNAMIC rules in the API's filter grammar (AIP-160 subset: `field = value`,
 * `field:"text"`, comparisons, AND/OR/NOT), and the rule editor's mapping of the API's verdict to a
 * sentence (pure: tested in test/admin-unit/customers.test.ts).
 */
import { ApiError } from '@siteplatform/sdk';

/** A quoted filter value (backslash escapes, as the API's parser reads them). */
export function quote(text: string): string {
  return '"' + text.replace(/[\\"]/g, (c) => '\\' + c).replace(/\n/g, '\\n') + '"';
}

export interface CustomerListSearch {
  q?: string;
  group?: string;
  tag?: string;
  /** `YYYY-MM-DD`, in the browser's time zone. */
  created_from?: string;
  created_to?: string;
  active?: 'true' | 'false';
  page_token?: string;
}

const dayStart = (day: string, offsetDays = 0) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + offsetDays).toISOString();
};

/** The List filter of the customer list's controls; undefined when nothing is chosen. */
export function customerFilter(s: CustomerListSearch): string | undefined {
  const terms: string[] = [];
  const q = s.q?.trim();
  if (q) terms.push(`(email:${quote(q.toLowerCase())} OR display_name:${quote(q)})`);
  if (s.group) terms.push(`group_ids:${quote(s.group)}`);
  if (s.tag?.trim()) terms.push(`tags:${quote(s.tag.trim())}`);
  if (s.created_from && /^\d{4}-\d{2}-\d{2}$/.test(s.created_from)) terms.push(`create_time >= ${quote(dayStart(s.created_from))}`);
  if (s.created_to && /^\d{4}-\d{2}-\d{2}$/.test(s.created_to)) terms.push(`create_time < ${quote(dayStart(s.created_to, 1))}`);
  if (s.active === 'true' || s.active === 'false') terms.push(`is_active = ${s.active}`);
  return terms.length ? terms.join(' AND ') : undefined;
}

export type RuleVerdict =
  | { state: 'empty' }
  | { state: 'valid' }
  | { state: 'invalid'; message: string; offset?: number }
  | { state: 'unknown'; message: string };

/** The API's answer to a `validate_only` write of the rule, as the editor shows it next to the field. */
export function ruleVerdict(rule: string, err: unknown): RuleVerdict {
  if (!rule.trim()) return { state: 'empty' };
  if (err === undefined) return { state: 'valid' };
  const description = ApiError.is(err, 'INVALID_ARGUMENT') ? err.violation('rule') : undefined;
  if (description === undefined) return { state: 'unknown', message: ApiError.is(err) ? err.message : 'The rule could not be checked.' };
  const at = /at offset (\d+)/.exec(description);
  const text = description.charAt(0).toUpperCase() + description.slice(1);
  return { state: 'invalid', message: text.endsWith('.') ? text : `${text}.`, offset: at ? Number(at[1]) : undefined };
}

/** Starting points for a rule, in the grammar the API reads (fields a rule may use: email, tags, create_time). */
export const RULE_EXAMPLES: { label: string; rule: string }[] = [
  { label: 'Tagged vip', rule: 'tags:"vip"' },
  { label: 'Address at a domain', rule: 'email:"@example.com"' },
  { label: 'Joined this year', rule: `create_time >= "${new Date(new Date().getFullYear(), 0, 1).toISOString()}"` },
  { label: 'Tagged vip or wholesale', rule: 'tags:"vip" OR tags:"wholesale"' },
];

/** The `after_id` of a `:move` that puts `ids[index]` where it now is (null: first). */
export const afterIdOf = (ids: readonly string[], index: number): string | null => (index > 0 ? ids[index - 1] : null);
