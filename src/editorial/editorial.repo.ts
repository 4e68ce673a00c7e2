import { sql } from 'kysely';
import type { Db, Trx } from '../platform/db/schema.js';
import type { SqlDialect } from '../platform/db/database.js';
import { newId } from '../platform/resource/ids.js';
import type { Row } from '../platform/resource/declaration.js';

/**
 * `:refill` in two set-based statements (inside the caller's transaction, after the website's refill
 * lock): (1) one INSERT … SELECT pairs the free slot times (given as a VALUES list, computed in the
 * zone by `slots.ts`) in time order with the READY backlog items by priority (highest first, then
 * oldest), ROW_NUMBER against ROW_NUMBER, skipping slots already booked; `ON CONFLICT (website_id,
 * slot_time) DO NOTHING` makes a slot another refill booked meanwhile a no-op instead of a second
 * booking; (2) one UPDATE marks every READY item an entry now holds SCHEDULED. Answers the new rows.
 */
export async function refillSlots(trx: Db | Trx, websiteId: string, accountId: string, slotTimes: readonly number[], now: number): Promise<Row[]> {
  if (slotTimes.length === 0) return [];
  const values = sql.join(slotTimes.map((t, i) => sql`(cast(${t} as bigint), ${newId(now + i)})`));
  const result = await sql<Row>`
    with slots (slot_time, id) as (values ${values}),
    free as (
      select s.slot_time, s.id, row_number() over (order by s.slot_time) as n
      from slots s
      where not exists (select 1 from editorial_calendar_entries e where e.website_id = ${websiteId} and e.slot_time = s.slot_time)
    ),
    items as (
      -- The top N first (a bounded top-N sort over the READY range of the state index), numbered after.
      select t.id, row_number() over (order by t.priority desc, t.create_time, t.id) as n
      from (
        select b.id, b.priority, b.create_time
        from editorial_backlog_items b
        where b.website_id = ${websiteId} and b.state = 'READY'
        order by b.priority desc, b.create_time, b.id
        limit ${slotTimes.length}
      ) t
    )
    insert into editorial_calendar_entries (website_id, id, account_id, slot_time, backlog_item_id, state, revision, create_time, update_time)
    select ${websiteId}, f.id, ${accountId}, f.slot_time, i.id, 'PLANNED', 1, cast(${now} as bigint), cast(${now} as bigint)
    from free f join items i on i.n = f.n
    where true
    on conflict (website_id, slot_time) do nothing
    returning *`.execute(trx);
  if (result.rows.length === 0) return [];
  // The items just booked, by primary key (a plan that needs no statistics: the table may have just been bulk-filled).
  const booked = sql.join(result.rows.map((r) => sql`${r.backlog_item_id}`));
  await sql`
    update editorial_backlog_items set state = 'SCHEDULED', revision = revision + 1, update_time = cast(${now} as bigint)
    where website_id = ${websiteId} and state = 'READY' and id in (${booked})`.execute(trx);
  return result.rows.sort((a, b) => Number(a.slot_time) - Number(b.slot_time));
}

export async function loadEntry(db: Db | Trx, dialect: SqlDialect, websiteId: string, id: string, forUpdate = false): Promise<Row | undefined> {
  let query = db.selectFrom('editorial_calendar_entries').selectAll().where('website_id', '=', websiteId).where('id', '=', id);
  if (forUpdate) query = dialect.forUpdate(query);
  return query.executeTakeFirst();
}

export async function loadBacklogItem(db: Db | Trx, websiteId: string, id: string | null | undefined): Promise<Row | undefined> {
  if (!id) return undefined;
  return db.selectFrom('editorial_backlog_items').selectAll().where('website_id', '=', websiteId).where('id', '=', id).executeTakeFirst();
}

export async function setBacklogState(db: Db | Trx, websiteId: string, id: string | null | undefined, from: readonly string[], to: string, now: number): Promise<void> {
  if (!id) return;
  await db
    .updateTable('editorial_backlog_items')
    .set((eb) => ({ state: to, revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .where('state', 'in', from as string[])
    .execute();
}

/** Entries of AUTOMATIC plans' websites due for a step: PLANNED ones inside the lead time, approved ones not yet scheduled. */
export async function dueEntries(db: Db | Trx, websiteId: string, states: readonly string[], until: number, from: number): Promise<Row[]> {
  return db
    .selectFrom('editorial_calendar_entries')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('state', 'in', states as string[])
    .where('slot_time', '<=', until)
    .where('slot_time', '>', from)
    .orderBy('slot_time')
    .limit(50)
    .execute();
}

/** Writes the changed columns of a calendar entry, with revision + 1 (job writes outside the engine). */
export async function updateEntry(db: Db | Trx, websiteId: string, id: string, changes: Row, updateTime: number): Promise<void> {
  await db
    .updateTable('editorial_calendar_entries')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1), update_time: updateTime }))
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .execute();
}

/** Entries keep their slots but no longer name a deleted backlog item. */
export async function detachBacklogItem(db: Db | Trx, websiteId: string, itemId: string, now: number): Promise<void> {
  await db
    .updateTable('editorial_calendar_entries')
    .set((eb) => ({ backlog_item_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('backlog_item_id', '=', itemId)
    .execute();
}

/** Ids of the entries that hold a post. */
export async function entryIdsWithPost(db: Db | Trx, websiteId: string, postId: string) {
  return db.selectFrom('editorial_calendar_entries').select('id').where('website_id', '=', websiteId).where('post_id', '=', postId).execute();
}

/** Entries of a deleted post go back to PLANNED (slot and item kept) unless they were PUBLISHED. */
export async function detachPost(db: Db | Trx, websiteId: string, postId: string, now: number): Promise<void> {
  await db
    .updateTable('editorial_calendar_entries')
    .set((eb) => ({
      post_id: null,
      state: eb.case().when('state', '=', 'PUBLISHED').then('PUBLISHED').else('PLANNED').end(),
      verdict: null,
      approval: null,
      revision: eb('revision', '+', 1),
      update_time: now,
    }))
    .where('website_id', '=', websiteId)
    .where('post_id', '=', postId)
    .execute();
}

/** The stored plan row of a website (none until first written), optionally locked. */
export async function findPlanRow(db: Db | Trx, dialect: SqlDialect, websiteId: string, forUpdate = false) {
  let query = db.selectFrom('editorial_plans').selectAll().where('id', '=', websiteId);
  if (forUpdate) query = dialect.forUpdate(query);
  return query.executeTakeFirst();
}

/** Stops a plan's automation with the reason, dropping its live tick. */
export async function stopPlanAutomation(db: Db | Trx, websiteId: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('editorial_plans')
    .set((eb) => ({ automation_state: 'STOPPED', automation_stop_reason: reason.slice(0, 2000), automation_tick_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', websiteId)
    .execute();
}

/** Makes `tickId` the plan's only live automation tick. */
export async function setPlanTick(db: Db | Trx, websiteId: string, tickId: string): Promise<void> {
  await db.updateTable('editorial_plans').set({ automation_tick_id: tickId }).where('id', '=', websiteId).execute();
}
