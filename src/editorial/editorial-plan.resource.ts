import type { SqlDialect } from '../platform/db/database.js';
import { read, write } from '../platform/auth/rights.js';
import { InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { CustomMethodDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import type { Db, Trx } from '../platform/db/schema.js';
import { agentExists } from '../ai/index.js';
import { websiteAccountAndZone } from '../websites/index.js';
import { knownTimeZone, WEEKDAYS, type Slot } from './slots.js';
import { findPlanRow } from './editorial.repo.js';

export const EDITORIAL_RIGHTS = { read: read('website.editorial'), write: write('website.editorial') };
/** Most slots a week (one an hour). */
export const MAX_SLOTS = 168;
export const TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

/** The plan row as the editorial code reads it (stored defaults for a never-written plan). */
export interface Plan {
  websiteId: string;
  accountId: string;
  slots: Slot[];
  timeZone: string;
  horizonDays: number;
  defaultAuthorId: string | null;
  defaultCategoryIds: string[];
  defaultVisibleViewIds: string[];
  draftingAgentId: string | null;
  reviewAgentId: string | null;
  automation: 'MANUAL' | 'AUTOMATIC';
  materializeLeadHours: number;
  requirePassingVerdict: boolean;
  allowPersonApproval: boolean;
  automationState: string | null;
  automationTickId: string | null;
}

export const PLAN_DEFAULTS = { horizon_days: 14, automation: 'MANUAL', materialize_lead_hours: 48, require_passing_verdict: true, allow_person_approval: true } as const;

/** The website's plan, or its defaults when never written; the website's time zone when the plan names none. */
export async function loadPlan(db: Db | Trx, dialect: SqlDialect, websiteId: string, forUpdate = false): Promise<Plan | undefined> {
  const website = await websiteAccountAndZone(db, websiteId);
  if (!website) return undefined;
  const row: Row = (await findPlanRow(db, dialect, websiteId, forUpdate)) ?? {};
  const bool = (v: unknown, d: boolean) => (v === undefined || v === null ? d : v === true || v === 1);
  return {
    websiteId,
    accountId: website.account_id,
    slots: dialect.readJson<Slot[]>(row.slots) ?? [],
    timeZone: row.time_zone ?? website.time_zone ?? 'UTC',
    horizonDays: Number(row.horizon_days ?? PLAN_DEFAULTS.horizon_days),
    defaultAuthorId: row.default_author_id ?? null,
    defaultCategoryIds: dialect.readJson<string[]>(row.default_category_ids) ?? [],
    defaultVisibleViewIds: dialect.readJson<string[]>(row.default_visible_view_ids) ?? [],
    draftingAgentId: row.drafting_agent_id ?? null,
    reviewAgentId: row.review_agent_id ?? null,
    automation: row.automation ?? PLAN_DEFAULTS.automation,
    materializeLeadHours: Number(row.materialize_lead_hours ?? PLAN_DEFAULTS.materialize_lead_hours),
    requirePassingVerdict: bool(row.require_passing_verdict, PLAN_DEFAULTS.require_passing_verdict),
    allowPersonApproval: bool(row.allow_person_approval, PLAN_DEFAULTS.allow_person_approval),
    automationState: row.automation_state ?? null,
    automationTickId: row.automation_tick_id ?? null,
  };
}

/** Refuses a cadence that cannot be met, naming the field. */
export function checkSlots(slots: Slot[], field = 'slots'): void {
  const violations: FieldViolation[] = [];
  const seen = new Set<string>();
  slots.forEach((slot, i) => {
    if (!WEEKDAYS.includes(slot.weekday)) violations.push({ field: `${field}[${i}].weekday`, description: `must be one of ${WEEKDAYS.join(', ')}` });
    if (!new RegExp(TIME_PATTERN).test(slot.time)) violations.push({ field: `${field}[${i}].time`, description: 'must be a local time HH:MM (00:00 to 23:59)' });
    const key = `${slot.weekday} ${slot.time}`;
    if (seen.has(key)) violations.push({ field: `${field}[${i}]`, description: `${key} is listed twice` });
    seen.add(key);
  });
  if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
}

/** An agent of the account (another account's is refused like a missing one), naming the field. */
export async function checkAgent(db: Db | Trx, accountId: string, agentId: string, field: string): Promise<void> {
  const agent = await agentExists(db, accountId, agentId);
  if (!agent) throw InvalidArgument.field(field, `${agentId} is not an AI agent of this account`);
}

/**
 * `websites/{w}/editorial_plan`: the publication rules of a website, a singleton that always exists
 * (defaults until first written). `:refill` is declared by the calendar (it writes entries).
 */
export function editorialPlanResource(deps: { dialect: SqlDialect; customMethods: CustomMethodDecl[]; onUpdated: (ctx: WriteContext, row: Row, previous: Row) => Promise<void> }): ResourceDecl {
  const { dialect } = deps;

  async function beforeUpdate(ctx: WriteContext, next: Row, previous: Row): Promise<void> {
    const slots = dialect.readJson<Slot[]>(next.slots) ?? [];
    if (ctx.updatedPaths.includes('slots')) checkSlots(slots);
    if (ctx.updatedPaths.includes('time_zone') && next.time_zone !== null) {
      const zone = knownTimeZone(next.time_zone);
      if (!zone) throw InvalidArgument.field('time_zone', 'is not an IANA time zone (e.g. Europe/Berlin)');
      next.time_zone = zone;
    }
    if (next.automation === 'AUTOMATIC' && slots.length === 0) {
      throw InvalidArgument.field(ctx.updatedPaths.includes('slots') ? 'slots' : 'automation', 'AUTOMATIC needs at least one slot in `slots`');
    }
    for (const field of ['drafting_agent_id', 'review_agent_id']) {
      if (next[field] && next[field] !== previous[field]) await checkAgent(ctx.trx, ctx.access!.accountId, next[field], field);
    }
    // Turning automation on (again) starts it afresh: a stop reason belongs to the run that stopped.
    if (next.automation === 'AUTOMATIC' && (previous.automation !== 'AUTOMATIC' || previous.automation_state === 'STOPPED' || ctx.updatedPaths.includes('automation'))) {
      next.automation_state = 'ACTIVE';
      next.automation_stop_reason = null;
    }
    if (next.automation === 'MANUAL') {
      next.automation_state = null;
      next.automation_stop_reason = null;
      next.automation_tick_id = null;
    }
  }

  return {
    kind: 'singleton',
    collection: 'editorial_plan',
    singular: 'EditorialPlan',
    table: 'editorial_plans',
    description:
      'Publication rules of a website (one per website, answered with its defaults until first written): the cadence (`slots`, local times ' +
      'in `time_zone`), how far ahead the calendar is kept filled (`horizon_days`), defaults of new posts, the agents that draft and review, ' +
      'whether the calendar runs by itself (`automation`), and what publishing requires (`require_passing_verdict`, `allow_person_approval`). ' +
      '`:refill` books every free slot inside the horizon from the backlog.',
    collectionPath: 'websites/{website_id}/editorial_plan',
    itemPath: 'websites/{website_id}/editorial_plan',
    fields: {
      slots: {
        type: 'object',
        description:
          `The weekly cadence: up to ${MAX_SLOTS} slots, each a \`weekday\` (MONDAY … SUNDAY) and a local \`time\` (HH:MM, 24 h) in \`time_zone\`; ` +
          'replaced whole when sent. A local time the clocks skip (DST) moves forward by the gap; one they repeat is its first occurrence. ' +
          'Empty: nothing to refill (refused while `automation` is AUTOMATIC and by `:refill`).',
        default: [],
        schema: {
          type: 'array',
          maxItems: MAX_SLOTS,
          items: {
            type: 'object',
            required: ['weekday', 'time'],
            additionalProperties: false,
            properties: {
              weekday: { type: 'string', enum: [...WEEKDAYS], description: 'Day of the week.' },
              time: { type: 'string', pattern: TIME_PATTERN, maxLength: 5, description: 'Local time, HH:MM.' },
            },
          },
        },
        example: [{ weekday: 'MONDAY', time: '09:00' }, { weekday: 'THURSDAY', time: '17:30' }],
      },
      time_zone: {
        type: 'string',
        description: "IANA time zone the slots are read in (stored in canonical case); absent: the website's `time_zone`. An unknown zone is INVALID_ARGUMENT.",
        maxLength: 64,
        trim: true,
        example: 'Europe/Berlin',
      },
      horizon_days: { type: 'integer', description: 'How many days ahead `:refill` keeps the calendar filled, 1 to 365.', minimum: 1, maximum: 365, default: PLAN_DEFAULTS.horizon_days },
      default_author_id: { type: 'string', description: 'Blog author of new drafts (an author of this website).', maxLength: 64, refersTo: { table: 'blog_authors', what: 'a blog author' } },
      default_category_ids: {
        type: 'string_list',
        description: "Categories of new drafts (blog categories of this website); a backlog item's `category_id` is added.",
        maxItems: 100,
        itemMinLength: 1,
        itemMaxLength: 64,
        default: [],
        refersTo: { table: 'blog_categories', what: 'a blog category' },
      },
      default_visible_view_ids: {
        type: 'string_list',
        description: '`visible_view_ids` of new drafts (views of this website); empty: every view.',
        maxItems: 100,
        itemMinLength: 1,
        itemMaxLength: 64,
        default: [],
        refersTo: { table: 'views', what: 'a view' },
      },
      drafting_agent_id: {
        type: 'string',
        description: 'AI agent of this account that drafts posts (copy the `ai_system_agents` entry `editorial-draft-post`); absent: `:materialize` makes an empty draft from the backlog item. Another account\'s agent is INVALID_ARGUMENT.',
        maxLength: 64,
      },
      review_agent_id: {
        type: 'string',
        description: 'AI agent of this account that reviews drafts (copy `editorial-review-draft`); when set, every finished draft is reviewed. Another account\'s agent is INVALID_ARGUMENT.',
        maxLength: 64,
      },
      automation: {
        type: 'enum',
        values: ['MANUAL', 'AUTOMATIC'],
        description:
          'MANUAL (default): the calendar moves only when called. AUTOMATIC: a durable job refills the calendar, materializes entries ' +
          '`materialize_lead_hours` before their slot and schedules approved posts for their slot; needs at least one slot.',
        default: PLAN_DEFAULTS.automation,
      },
      materialize_lead_hours: { type: 'integer', description: 'AUTOMATIC: how long before its slot an entry is drafted, 1 to 720 hours.', minimum: 1, maximum: 720, default: PLAN_DEFAULTS.materialize_lead_hours },
      require_passing_verdict: {
        type: 'boolean',
        description: "`:publish` needs the latest review's verdict to have passed for the post as it stands (else FAILED_PRECONDITION).",
        default: PLAN_DEFAULTS.require_passing_verdict,
      },
      allow_person_approval: {
        type: 'boolean',
        description: "A person's `:approve` of the post as it stands may stand in for a passing verdict.",
        default: PLAN_DEFAULTS.allow_person_approval,
      },
      automation_state: {
        type: 'enum',
        values: ['ACTIVE', 'STOPPED'],
        description: 'AUTOMATIC only: ACTIVE, or STOPPED by the platform (see `automation_stop_reason`, e.g. the AI balance ran out); writing `automation` AUTOMATIC again restarts it.',
        behavior: ['OUTPUT_ONLY'],
      },
      automation_stop_reason: { type: 'string', description: 'Why the automation stopped: a reason code and a message.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: [],
    sortable: [],
    defaultOrder: 'create_time desc',
    methods: ['get', 'update'],
    rights: EDITORIAL_RIGHTS,
    hooks: {
      beforeUpdate,
      async afterUpdate(ctx, row, previous) {
        await deps.onUpdated(ctx, row, previous);
      },
    },
    customMethods: deps.customMethods,
  };
}
