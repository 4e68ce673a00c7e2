/**
 * Which verbs a calendar entry offers in its state (the API's state machine, docs/decisions.md
 * "Editorial"; pure: tested in test/admin-unit/editorial-verbs.test.ts). Only verbs that can succeed
 * are offered: `:review` needs the plan's review agent, `:approve` is hidden while the plan requires a
 * verdict and does not let a person stand in, `:publish` of an unreviewed draft only when no verdict is required.
 */
export type EntryState = 'PLANNED' | 'DRAFTING' | 'DRAFTED' | 'IN_REVIEW' | 'APPROVED' | 'REJECTED' | 'SCHEDULED' | 'PUBLISHED' | 'FAILED';
export type EntryVerb = 'materialize' | 'review' | 'approve' | 'reject' | 'publish' | 'retry';

export interface PlanRules {
  review_agent_id?: string | null;
  require_passing_verdict?: boolean;
  allow_person_approval?: boolean;
}

export interface EntryLike {
  state?: EntryState | string;
  post_id?: string | null;
}

export function entryVerbs(entry: EntryLike, plan: PlanRules): EntryVerb[] {
  const hasPost = !!entry.post_id;
  const canReview = !!plan.review_agent_id && hasPost;
  const personMayApprove = !plan.require_passing_verdict || !!plan.allow_person_approval;
  switch (entry.state) {
    case 'PLANNED':
      return ['materialize'];
    case 'DRAFTED':
      return [
        ...(canReview ? (['review'] as const) : []),
        ...(hasPost && personMayApprove ? (['approve'] as const) : []),
        ...(hasPost ? (['reject'] as const) : []),
        ...(hasPost && !plan.require_passing_verdict ? (['publish'] as const) : []),
        'materialize',
      ];
    case 'APPROVED':
      return [...(hasPost ? (['publish', 'reject'] as const) : []), ...(canReview ? (['review'] as const) : []), 'materialize'];
    case 'REJECTED':
      return [...(canReview ? (['review'] as const) : []), ...(hasPost && personMayApprove ? (['approve'] as const) : []), 'materialize'];
    case 'FAILED':
      return ['retry', 'materialize'];
    default:
      // DRAFTING and IN_REVIEW wait for their run; SCHEDULED and PUBLISHED are done.
      return [];
  }
}

export const VERB_LABELS: Record<EntryVerb, string> = {
  materialize: 'Draft',
  review: 'Review',
  approve: 'Approve',
  reject: 'Reject',
  publish: 'Publish',
  retry: 'Retry',
};

/** A drafted entry offers `materialize` as "Draft again" (it regenerates the post). */
export const verbLabel = (verb: EntryVerb, entry: EntryLike) => (verb === 'materialize' && entry.post_id ? 'Draft again' : VERB_LABELS[verb]);

export const STATE_LABELS: Record<EntryState, string> = {
  PLANNED: 'Planned',
  DRAFTING: 'Drafting',
  DRAFTED: 'Drafted',
  IN_REVIEW: 'In review',
  APPROVED: 'Approved',
  REJECTED: 'Rejected',
  FAILED: 'Failed',
  SCHEDULED: 'Scheduled',
  PUBLISHED: 'Published',
};

/** Filled badge colours dark enough for white text (axe: 4.5:1). */
export const STATE_COLORS: Record<EntryState, string> = {
  PLANNED: 'gray.8',
  DRAFTING: 'indigo.9',
  DRAFTED: 'blue.9',
  IN_REVIEW: 'violet.9',
  APPROVED: 'teal.9',
  REJECTED: '#a63c06',
  FAILED: 'red.9',
  SCHEDULED: 'cyan.9',
  PUBLISHED: '#1e6b34',
};

/** Money `{units, nanos, currency_code}` → "$0.0034". */
export function formatMoney(m: { units?: string; nanos?: number; currency_code?: string } | undefined): string | undefined {
  if (!m) return undefined;
  const value = Number(m.units ?? 0) + (m.nanos ?? 0) / 1e9;
  const digits = Math.abs(value) > 0 && Math.abs(value) < 0.01 ? 4 : 2;
  return new Intl.NumberFormat('en', { style: 'currency', currency: m.currency_code ?? 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}
