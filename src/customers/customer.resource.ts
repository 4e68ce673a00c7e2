import { AlreadyExists, InvalidArgument } from '../platform/errors.js';
import { hashPassword, passwordProblem } from '../platform/auth/passwords.js';
import type { Database } from '../platform/db/database.js';
import type { Operations } from '../platform/jobs/operations.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { checkAttributes } from './attribute-values.js';
import type { CustomerSessions } from './customer-sessions.service.js';
import {
  attributeDefs,
  customerIdByEmail,
  manualGroupIds,
  membershipsOf,
  recomputeCustomerMemberships,
  tagHas,
  groupHas,
  writeManualMemberships,
  writeTags,
} from './customers.repo.js';
import { CUSTOMER_RIGHTS } from './shared.js';

/** What the customer area's declarations and handlers use. */
export interface CustomerAreaDeps {
  database: Database;
  operations: Operations;
  sessions: CustomerSessions;
}

/** Surrounding spaces are allowed: the address is stored trimmed and lowercase. */
const EMAIL_PATTERN = '^\\s*[^\\s@]+@[^\\s@]+\\s*$';

/** Visitors with an account on one website (SPEC 2.15). */
export function customerResource(deps: CustomerAreaDeps): ResourceDecl {
  const { dialect } = deps.database;

  /** Deduplicates `tags` on the row (stored null when empty) and answers the list. */
  function normaliseTags(row: Row): string[] {
    const tags = [...new Set(dialect.readJson<string[] | null>(row.tags) ?? [])];
    row.tags = tags.length ? dialect.json(tags) : null;
    return tags;
  }

  /** `manual_group_ids` as sent, checked to be MANUAL groups of the website; deduplicated. */
  async function checkedManualGroups(ctx: WriteContext, websiteId: string): Promise<string[]> {
    const sent = [...new Set((ctx.input.manual_group_ids as string[] | null | undefined) ?? [])];
    const manual = await manualGroupIds(ctx.trx, websiteId, sent);
    const foreign = sent.filter((id) => !manual.has(id));
    if (foreign.length) throw InvalidArgument.field('manual_group_ids', `${foreign.join(', ')}: not a MANUAL group of this website`);
    return sent;
  }

  async function checkedAttributes(ctx: WriteContext, row: Row, previous: Row | undefined): Promise<void> {
    const defs = await attributeDefs(ctx.trx, dialect, row.website_id);
    const stored = previous ? dialect.readJson<Record<string, unknown> | null>(previous.attributes) : null;
    const { value, violations } = checkAttributes(defs, ctx.input.attributes as Record<string, unknown> | null | undefined, stored);
    if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
    row.attributes = value ? dialect.json(value) : null;
  }

  return {
    collection: 'customers',
    singular: 'Customer',
    table: 'customers',
    description:
      'A visitor with an account on one website. `group_ids` are the MANUAL groups chosen plus the DYNAMIC groups whose rule matches; they follow a rule change shortly after it is saved.',
    collectionPath: 'websites/{website_id}/customers',
    itemPath: 'websites/{website_id}/customers/{customer_id}',
    fields: {
      email: {
        type: 'string',
        description: 'Sign-in address; unique on the website; stored lowercase without surrounding spaces; fixed after create.',
        behavior: ['REQUIRED', 'IMMUTABLE'],
        pattern: EMAIL_PATTERN,
        maxLength: 320,
        trim: true,
        lowercase: true,
        example: 'ada@example.com',
      },
      password: {
        type: 'string',
        description: 'Write-only. At least 8 characters with a letter and a digit; stored as an argon2id hash. Setting a new one signs the customer out of every session.',
        behavior: ['REQUIRED', 'INPUT_ONLY'],
        column: 'password_hash',
        maxLength: 256,
        example: 'correct-horse-9',
      },
      display_name: { type: 'string', description: 'Name shown for the customer.', maxLength: 255, trim: true },
      tags: {
        type: 'string_list',
        description: 'Free labels, each 1 to 64 characters, at most 100; duplicates kept once. Filter `tags:"vip"` matches customers holding the tag.',
        itemMinLength: 1,
        itemMaxLength: 64,
        maxItems: 100,
        filterHas: tagHas(dialect),
      },
      manual_group_ids: {
        type: 'string_list',
        description: 'Ids of MANUAL groups of the same website; a deleted group drops out on its own.',
        maxItems: 100,
        itemMaxLength: 64,
        column: false,
      },
      group_ids: {
        type: 'string_list',
        description: 'Manual plus matching DYNAMIC groups, ordered by id. Filter `group_ids:"{group id}"` lists a group\'s members.',
        behavior: ['OUTPUT_ONLY'],
        column: false,
        filterHas: groupHas(dialect),
      },
      is_active: { type: 'boolean', description: 'Whether the customer may sign in; off keeps the account but stops sessions from being renewed.', default: true },
      attributes: {
        type: 'object',
        description:
          'Key of a `customer_attribute` to value: string for TEXT, TEXTAREA, SELECT, DATE; number for NUMBER; boolean for BOOLEAN; array of option values for MULTISELECT. Replaced whole when sent; null, empty string or empty array means no value. An inactive field keeps its value: left out or sent unchanged it stays, changed it is refused. Omitted when empty.',
        schema: {
          maxProperties: 100,
          propertyNames: { maxLength: 64 },
          additionalProperties: {
            anyOf: [
              { type: 'string', maxLength: 8192 },
              { type: 'number' },
              { type: 'boolean' },
              { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 255 } },
              { type: 'null' },
            ],
          },
        },
      },
    },
    filterable: ['create_time', 'display_name', 'email', 'group_ids', 'is_active', 'tags'],
    sortable: ['create_time', 'email'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: CUSTOMER_RIGHTS,
    hooks: {
      // argon2id costs milliseconds of CPU: hash before the transaction opens, never under the write lock.
      async prepare(_ctx, input, paths) {
        if (!paths.includes('password') || typeof input.password !== 'string') return;
        const problem = passwordProblem(input.password);
        if (problem) throw InvalidArgument.field('password', problem);
        input.password = await hashPassword(input.password);
      },
      async beforeCreate(ctx, row) {
        normaliseTags(row);
        await checkedAttributes(ctx, row, undefined);
        if (await customerIdByEmail(ctx.trx, row.website_id, row.email)) throw new AlreadyExists(`a customer with email ${row.email} already exists on the website`, 'email');
        ctx.input.manual_group_ids = await checkedManualGroups(ctx, row.website_id);
      },
      async afterCreate(ctx, row) {
        await writeTags(ctx.trx, row.website_id, row.id, dialect.readJson<string[] | null>(row.tags) ?? []);
        await writeManualMemberships(ctx.trx, row.website_id, row.id, ctx.input.manual_group_ids as string[]);
        await recomputeCustomerMemberships(ctx.trx, dialect, row.website_id, row.id);
      },
      async beforeUpdate(ctx, next, previous) {
        const paths = ctx.updatedPaths;
        if (paths.includes('tags')) await writeTags(ctx.trx, next.website_id, next.id, normaliseTags(next));
        if (paths.includes('attributes')) await checkedAttributes(ctx, next, previous);
        if (paths.includes('manual_group_ids')) {
          await writeManualMemberships(ctx.trx, next.website_id, next.id, await checkedManualGroups(ctx, next.website_id));
        }
        if (paths.includes('password')) await deps.sessions.revokeAll(ctx.trx, next.id);
        // SPEC 2.15: group_ids are recomputed whenever the customer is written.
        await recomputeCustomerMemberships(ctx.trx, dialect, next.website_id, next.id);
      },
      async beforeDelete(ctx, row) {
        await deps.sessions.revokeAll(ctx.trx, row.id);
      },
      async enrich(db, rows) {
        const memberships = await membershipsOf(db, rows.map((r) => r.id));
        for (const row of rows) {
          const m = memberships.get(row.id)!;
          row.$manual_group_ids = m.manual;
          row.$group_ids = m.all;
        }
      },
      present(row, resource) {
        resource.manual_group_ids = row.$manual_group_ids ?? [];
        resource.group_ids = row.$group_ids ?? [];
      },
    },
  };
}
