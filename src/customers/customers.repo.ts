import { sql, type RawBuilder } from 'kysely';
import type { SemiJoinPlan, SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';
import { InvalidArgument } from '../platform/errors.js';
import { compileFilter, parseFilter, type FilterField, type FilterScope } from '../platform/query/filter.js';
import type { AttributeDef, AttributeType } from './attribute-values.js';

/**
 * SQL of the customer area that the resource engine does not write itself: tags and group
 * membership side tables, DYNAMIC rule evaluation, attribute definitions. No product rules here
 * beyond what a query needs; every function takes the website first.
 */

/**
 * `tags:"x"` answered from the indexed side table (one row per customer and tag), scoped to the
 * website, as the dialect's semi-join (see `SqlDialect.semiJoin`; measured at 1M customers on
 * SQLite: a page of a 10 % tag 13 ms instead of 130 ms when the tag's rows drive and the matches are
 * sorted, a 0.01 % tag 60 ms). For one customer (its own write) it is a primary-key probe.
 */
export function tagHas(dialect: SqlDialect): (value: string, scope: FilterScope, plan?: SemiJoinPlan) => RawBuilder<boolean> {
  return (value, scope, plan) => {
    const tagged = sql<boolean>`${sql.ref('customer_tags.website_id')} = ${scope.website_id} and ${sql.ref('customer_tags.tag')} = ${value}`;
    if (scope.customer_id) {
      return sql<boolean>`exists (select 1 from ${sql.table('customer_tags')} where ${tagged} and ${sql.ref('customer_tags.customer_id')} = ${sql.ref('customers.id')})`;
    }
    return dialect.semiJoin('customers.id', { table: 'customer_tags', column: 'customer_id', where: tagged, tenant: 'website_id' }, plan);
  };
}

/**
 * `group_ids:"g"` answered from the membership side table (MANUAL members as chosen, DYNAMIC ones as
 * computed), scoped to the website, as the dialect's semi-join like `tags`; its primary key leads
 * with the group, so a group's rows can drive a page.
 */
export function groupHas(dialect: SqlDialect): (value: string, scope: FilterScope, plan?: SemiJoinPlan) => RawBuilder<boolean> {
  return (value, scope, plan) => {
    const member = sql<boolean>`${sql.ref('customer_group_members.website_id')} = ${scope.website_id} and ${sql.ref('customer_group_members.group_id')} = ${value}`;
    if (scope.customer_id) {
      return sql<boolean>`exists (select 1 from ${sql.table('customer_group_members')} where ${member} and ${sql.ref('customer_group_members.customer_id')} = ${sql.ref('customers.id')})`;
    }
    return dialect.semiJoin('customers.id', { table: 'customer_group_members', column: 'customer_id', where: member, tenant: 'website_id' }, plan);
  };
}

/** The customer fields a DYNAMIC rule may use (SPEC 2.14), compiled like the customers List filter. */
export function ruleFields(dialect: SqlDialect): Record<string, FilterField> {
  return {
    email: { column: 'email', type: 'string', lowercase: true },
    tags: { column: 'tags', type: 'string_list', has: tagHas(dialect) },
    create_time: { column: 'create_time', type: 'timestamp' },
  };
}

/**
 * Parses and compiles a rule with the List filter's parser and compiler; every problem is an
 * INVALID_ARGUMENT on `rule` (unparsable text, a field outside email/tags/create_time, a mistyped value).
 */
export function compileRule(rule: string, dialect: SqlDialect, websiteId: string, customerId?: string): RawBuilder<boolean> | undefined {
  try {
    const ast = parseFilter(rule);
    const scope: FilterScope = customerId ? { website_id: websiteId, customer_id: customerId } : { website_id: websiteId };
    return ast && (compileFilter(ast, ruleFields(dialect), dialect, scope) as RawBuilder<boolean>);
  } catch (err) {
    if (!(err instanceof InvalidArgument)) throw err;
    const [violation] = err.details as Array<{ field?: string; description?: string }>;
    const what = violation?.field === 'filter' ? violation.description : `${violation?.field} ${violation?.description}`;
    const hint = violation?.description === 'is not a filterable field' ? ' (a rule may use email, tags, create_time)' : '';
    throw InvalidArgument.field('rule', `${what}${hint}`);
  }
}

/** Replaces the tag rows of one customer. */
export async function writeTags(db: Db | Trx, websiteId: string, customerId: string, tags: readonly string[]): Promise<void> {
  await db.deleteFrom('customer_tags').where('customer_id', '=', customerId).execute();
  if (tags.length) {
    await db
      .insertInto('customer_tags')
      .values(tags.map((tag) => ({ website_id: websiteId, tag, customer_id: customerId })))
      .execute();
  }
}

/** Ids among `ids` that are MANUAL groups of the website. */
export async function manualGroupIds(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('customer_groups')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('type', '=', 'MANUAL')
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Replaces a customer's MANUAL memberships (ids already checked). */
export async function writeManualMemberships(db: Db | Trx, websiteId: string, customerId: string, groupIds: readonly string[]): Promise<void> {
  await db
    .deleteFrom('customer_group_members')
    .where('customer_id', '=', customerId)
    .where('group_id', 'in', (eb) => eb.selectFrom('customer_groups').select('id').where('website_id', '=', websiteId).where('type', '=', 'MANUAL'))
    .execute();
  if (groupIds.length) {
    await db
      .insertInto('customer_group_members')
      .values(groupIds.map((groupId) => ({ website_id: websiteId, group_id: groupId, customer_id: customerId })))
      .execute();
  }
}

/**
 * Recomputes one customer's DYNAMIC memberships inside its write transaction: one SELECT that
 * evaluates every rule of the website against the customer's row, then one INSERT. Rules are
 * share-locked, so a running group recompute (which locks its group for update) and this write
 * never interleave on PostgreSQL.
 */
export async function recomputeCustomerMemberships(db: Db | Trx, dialect: SqlDialect, websiteId: string, customerId: string): Promise<void> {
  const groups = await dialect
    .forShare(
      db
        .selectFrom('customer_groups')
        .select(['id', 'rule'])
        .where('website_id', '=', websiteId)
        .where('type', '=', 'DYNAMIC')
        .where('rule', 'is not', null)
        .orderBy('id'),
    )
    .execute();
  await db
    .deleteFrom('customer_group_members')
    .where('customer_id', '=', customerId)
    .where('group_id', 'in', (eb) => eb.selectFrom('customer_groups').select('id').where('website_id', '=', websiteId).where('type', '=', 'DYNAMIC'))
    .execute();
  const compiled = groups.flatMap((g) => {
    const where = g.rule === null ? undefined : compileRule(g.rule, dialect, websiteId, customerId);
    return where ? [{ id: g.id, where }] : [];
  });
  if (compiled.length === 0) return;
  const columns = compiled.map((g, i) => sql`case when ${g.where} then 1 else 0 end as ${sql.ref(`m${i}`)}`);
  const result = await sql<Record<string, unknown>>`select ${sql.join(columns)} from ${sql.table('customers')} where ${sql.ref('customers.id')} = ${customerId}`.execute(db);
  const row = result.rows[0];
  if (!row) return;
  const matched = compiled.filter((_, i) => Number(row[`m${i}`]) === 1);
  if (matched.length) {
    await db
      .insertInto('customer_group_members')
      .values(matched.map((g) => ({ website_id: websiteId, group_id: g.id, customer_id: customerId })))
      .execute();
  }
}

/**
 * Recomputes a DYNAMIC group's members set-based: one DELETE of members the rule no longer
 * matches and one INSERT … SELECT of matching customers (existing members skipped), so an
 * unchanged rule writes nothing. Without a rule the group has no members.
 */
export async function recomputeGroupMembers(db: Db | Trx, dialect: SqlDialect, websiteId: string, groupId: string, rule: string | null): Promise<{ members: number }> {
  const where = rule ? compileRule(rule, dialect, websiteId) : undefined;
  if (!where) {
    await db.deleteFrom('customer_group_members').where('group_id', '=', groupId).execute();
    return { members: 0 };
  }
  // An anti-join (NOT EXISTS with a primary-key probe per member), never NOT IN: PostgreSQL runs a NOT IN
  // subquery that does not fit work_mem once per row, which is quadratic at a million members.
  await db
    .deleteFrom('customer_group_members')
    .where('group_id', '=', groupId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('customers').select(sql.lit(1).as('one')).whereRef('customers.id', '=', 'customer_group_members.customer_id').where(where))),
    )
    .execute();
  await db
    .insertInto('customer_group_members')
    .columns(['website_id', 'group_id', 'customer_id'])
    .expression(
      db
        .selectFrom('customers')
        .select([sql<string>`cast(${websiteId} as text)`.as('website_id'), sql<string>`cast(${groupId} as text)`.as('group_id'), 'customers.id'])
        .where('customers.website_id', '=', websiteId)
        .where(where),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  const counted = await db
    .selectFrom('customer_group_members')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('group_id', '=', groupId)
    .executeTakeFirstOrThrow();
  return { members: Number(counted.n) };
}

/** Group memberships of a batch of customers, manual and all, ordered by group id. */
export async function membershipsOf(db: Db | Trx, customerIds: readonly string[]): Promise<Map<string, { manual: string[]; all: string[] }>> {
  const out = new Map<string, { manual: string[]; all: string[] }>();
  for (const id of customerIds) out.set(id, { manual: [], all: [] });
  if (customerIds.length === 0) return out;
  const rows = await db
    .selectFrom('customer_group_members as m')
    .innerJoin('customer_groups as g', 'g.id', 'm.group_id')
    .select(['m.customer_id', 'm.group_id', 'g.type'])
    .where('m.customer_id', 'in', customerIds)
    .orderBy('m.group_id')
    .execute();
  for (const r of rows) {
    const entry = out.get(r.customer_id)!;
    entry.all.push(r.group_id);
    if (r.type === 'MANUAL') entry.manual.push(r.group_id);
  }
  return out;
}

/** The website's attribute definitions by key. */
export async function attributeDefs(db: Db | Trx, dialect: SqlDialect, websiteId: string): Promise<Map<string, AttributeDef>> {
  const rows = await db.selectFrom('customer_attributes').selectAll().where('website_id', '=', websiteId).execute();
  const defs = new Map<string, AttributeDef>();
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  for (const r of rows) {
    defs.set(r.key, {
      key: r.key,
      type: r.type as AttributeType,
      options: dialect.readJson(r.options) ?? null,
      isRequired: r.is_required === true || r.is_required === 1,
      isActive: r.is_active === true || r.is_active === 1,
      minLength: num(r.min_length),
      maxLength: num(r.max_length),
      minValue: num(r.min_value),
      maxValue: num(r.max_value),
    });
  }
  return defs;
}

/** Rows of `table` on the website. */
export async function countOnWebsite(db: Db | Trx, table: 'customer_attributes' | 'customer_attribute_groups', websiteId: string): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).executeTakeFirstOrThrow();
  return Number(row.n);
}


/** The id of the website's customer with this email, if any (email is stored lowercase). */
export async function customerIdByEmail(db: Db | Trx, websiteId: string, email: string): Promise<string | undefined> {
  const taken = await db.selectFrom('customers').select('id').where('website_id', '=', websiteId).where('email', '=', email).executeTakeFirst();
  return taken?.id;
}

/** What a sign-in checks of the website's customer with this email: its password hash and whether it is active. */
export function customerCredentialsByEmail(db: Db | Trx, websiteId: string, email: string) {
  return db.selectFrom('customers').select(['id', 'password_hash', 'is_active']).where('website_id', '=', websiteId).where('email', '=', email).executeTakeFirst();
}

/** What a reset mail needs of the website's customer with this email, and whether it is active. */
export function customerContactByEmail(db: Db | Trx, websiteId: string, email: string) {
  return db.selectFrom('customers').select(['id', 'email', 'display_name', 'is_active']).where('website_id', '=', websiteId).where('email', '=', email).executeTakeFirst();
}

/** The stored password hash of one customer of the website (undefined: no such customer). */
export async function passwordHashOf(db: Db | Trx, websiteId: string, customerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('customers').select('password_hash').where('id', '=', customerId).where('website_id', '=', websiteId).executeTakeFirst();
  return row?.password_hash;
}

/** Whether one customer of the website exists and is active (undefined: no such customer). */
export function customerActivity(db: Db | Trx, websiteId: string, customerId: string) {
  return db.selectFrom('customers').select(['id', 'is_active']).where('website_id', '=', websiteId).where('id', '=', customerId).executeTakeFirst();
}

/** The website's attributes with what the site's forms show of them, in form order (sort order, then id). */
export function formAttributeRows(db: Db | Trx, websiteId: string) {
  return db
    .selectFrom('customer_attributes')
    .select(['key', 'display_name', 'labels', 'description', 'type', 'options', 'is_required', 'show_in_registration', 'is_active'])
    .where('website_id', '=', websiteId)
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
}

/** Whether the website has an attribute with this key. */
export async function attributeKeyTaken(db: Db | Trx, websiteId: string, key: string): Promise<boolean> {
  const taken = await db.selectFrom('customer_attributes').select('id').where('website_id', '=', websiteId).where('key', '=', key).executeTakeFirst();
  return taken !== undefined;
}

/** Removes one attribute's values from every customer of the website that has one, set-based (a new revision each). */
export async function removeAttributeValues(db: Db | Trx, dialect: SqlDialect, websiteId: string, key: string, now: number): Promise<void> {
  await db
    .updateTable('customers')
    // The dialect's expression yields the column's stored JSON form.
    .set((eb) => ({ attributes: dialect.jsonWithoutKey('attributes', key).$castTo<string>(), revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where(sql<boolean>`${dialect.jsonHasKey('attributes', key)}`)
    .execute();
}

/** Moves a section's attributes to the default section (a new revision each). */
export async function moveAttributesToDefaultSection(db: Db | Trx, websiteId: string, groupId: string, now: number): Promise<void> {
  await db
    .updateTable('customer_attributes')
    .set((eb) => ({ group_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('group_id', '=', groupId)
    .execute();
}

/** The group row locked for update until the transaction ends (undefined: deleted). */
export function lockGroup(db: Db | Trx, dialect: SqlDialect, websiteId: string, groupId: string) {
  return dialect.forUpdate(db.selectFrom('customer_groups').selectAll().where('id', '=', groupId).where('website_id', '=', websiteId)).executeTakeFirst();
}

// --- embedded by other areas (cms: the page version a customer group or a signed-in customer sees) ---

/** A customer group of a website, as a derived table another area joins to: one row when it exists. */
export function customerGroupQuery(db: Db | Trx, websiteId: string, groupId: string) {
  return db.selectFrom('customer_groups').select(['customer_groups.id', 'customer_groups.website_id']).where('customer_groups.website_id', '=', websiteId).where('customer_groups.id', '=', groupId);
}

/**
 * A customer's groups with each group's priority, as a derived table another area joins to: one row
 * per membership, one row with a null group when in none, no row when no such customer.
 */
export function customerGroupsOfQuery(db: Db | Trx, websiteId: string, customerId: string) {
  return db
    .selectFrom('customers as c')
    .leftJoin('customer_group_members as cm', (join) => join.onRef('cm.customer_id', '=', 'c.id').onRef('cm.website_id', '=', 'c.website_id'))
    .leftJoin('customer_groups as cg', 'cg.id', 'cm.group_id')
    .select(['c.id as customer_id', 'c.website_id', 'cm.group_id', 'cg.priority'])
    .where('c.website_id', '=', websiteId)
    .where('c.id', '=', customerId);
}
