import { DateTime } from 'luxon';
import type { AreaDeps } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';
import type { Operations } from '../platform/jobs/operations.js';
import {
  addCounters,
  firstEventTime,
  firstRolledUpHour,
  clearTick,
  hasRawRows,
  insertRollupStateOnce,
  markPurgedBefore,
  markRolledUpUntil,
  setTick,
  HOUR_MS,
  hourlyRowsOfAllDimensions,
  loadRollupState,
  purgeRawBatch,
  rawHourRows,
  rawHourRowsOfVisitDimensions,
  rawRetentionDays,
  replaceDailyRollups,
  replaceRollups,
  restartDailyRollups,
  websiteTimeZone,
  type HourRow,
} from './analytics.repo.js';
import { VisitorSketch } from './sketches.js';

/**
 * Hourly roll-ups and raw retention (docs/architecture.md, "Analytics"): one chain of
 * `analytics.rollup_tick` Operations per website, like the editorial automation's ticks. A tick
 * rolls up every closed hour, merges every complete local day of the website's zone into daily
 * rows, purges raw rows past retention in bounded batches, and enqueues the next tick; the chain ends when the website has no raw rows left and `armRollups` starts it again.
 */

export const ROLLUP_TICK = 'analytics.rollup_tick';
/** A visit stays open this long after its last event: an hour is final this long after it ends. */
export const VISIT_TIMEOUT_MS = 30 * 60_000;
/** Hours rolled up in one transaction. */
const HOURS_PER_BATCH = 24;
/** Raw rows deleted per purge statement. */
const PURGE_BATCH = 5_000;
/** Pause after a tick that left work (more batches next tick, so a long backlog never holds a worker for long). */
const BUSY_TICK_MS = 1_000;
const RETRY_TICK_MS = 60_000;
const DAY_MS = 86_400_000;
/** Batches one tick runs before handing on to a fresh tick (bounded run time per Operation). */
const MAX_BATCHES_PER_TICK = 200;
/** Local days merged in one transaction, and day batches per tick. */
const DAYS_PER_BATCH = 7;
const MAX_DAY_BATCHES_PER_TICK = 60;

/** Hours starting before this are closed at `now` (the hour ended and its visits timed out). */
export const closedBefore = (now: number): number => Math.floor((now - VISIT_TIMEOUT_MS) / HOUR_MS) * HOUR_MS;

/**
 * Makes sure the website has a live roll-up tick, inside the caller's transaction (the ingest's
 * flush calls it for every website it wrote events of). Cheap when one is live: one locked point
 * read. Call `operations.wake()` after commit when it answers true.
 */
export async function armRollups(trx: Db | Trx, deps: { operations: Operations; dialect: SqlDialect }, websiteId: string, accountId: string, now: number): Promise<boolean> {
  await insertRollupStateOnce(trx, websiteId, accountId, now);
  const state = await loadRollupState(trx, deps.dialect, websiteId, true);
  if (state?.tickId) return false;
  await enqueueTick(trx, deps.operations, websiteId, accountId, now, now);
  return true;
}

async function enqueueTick(trx: Db | Trx, operations: Operations, websiteId: string, accountId: string, runAfter: number, now: number): Promise<void> {
  const id = await operations.enqueue(trx, { type: ROLLUP_TICK, accountId, websiteId, payload: { website_id: websiteId }, step: 'WAITING', runAfter }, now);
  await setTick(trx, websiteId, id, now);
}

/** Rolls up [from, to) of every dimension: the same rows `:query` computes live for hours not rolled up yet. */
export async function rollUpHours(db: Db | Trx, dialect: SqlDialect, websiteId: string, range: { from: number; to: number }, now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows: Array<{ dimension: string; row: HourRow }> = [];
    for (const dimension of ['', 'page', 'event_name'] as const) {
      for (const row of await rawHourRows(trx, dialect, websiteId, range, dimension)) rows.push({ dimension, row });
    }
    for (const [dimension, dimensionRows] of await rawHourRowsOfVisitDimensions(trx, websiteId, range)) {
      for (const row of dimensionRows) rows.push({ dimension, row });
    }
    await replaceRollups(trx, websiteId, range, rows, now);
    return rows.length;
  });
}

/**
 * Merges the hourly rows of every complete local day (the website's zone) not merged yet into daily
 * rows, at most `maxBatches` transactions of DAYS_PER_BATCH days. A changed zone first drops the
 * daily rows (`:query` ignores rows cut in another zone meanwhile). Answers the days written and
 * whether days are left.
 */
export async function rollUpDays(db: Db | Trx, dialect: SqlDialect, websiteId: string, now: number, maxBatches = MAX_DAY_BATCHES_PER_TICK): Promise<{ days: number; more: boolean }> {
  const [state, zone] = await Promise.all([loadRollupState(db, dialect, websiteId), websiteTimeZone(db, websiteId)]);
  if (state?.rolledUpUntil == null) return { days: 0, more: false };
  let cursor = state.dailyUntil ?? Number.MIN_SAFE_INTEGER;
  if (state.dailyTimeZone !== zone) {
    await db.transaction().execute((trx) => restartDailyRollups(trx, websiteId, zone, now));
    cursor = Number.MIN_SAFE_INTEGER;
  }
  const dayStart = (instant: number) => DateTime.fromMillis(instant, { zone }).startOf('day');
  // A day is complete once every hour starting in it is rolled up.
  const completeUntil = dayStart(state.rolledUpUntil).toMillis();
  let days = 0;
  for (let batch = 0; ; batch++) {
    const next = await firstRolledUpHour(db, websiteId, cursor);
    if (next === undefined) break;
    // The whole day holding the first hour left (a lowered cursor may point inside a day).
    const first = dayStart(Math.max(next, cursor));
    if (first.toMillis() >= completeUntil) break;
    if (batch === maxBatches) return { days, more: true };
    const edges = [first.toMillis()];
    for (let d = first; edges.length <= DAYS_PER_BATCH && edges.at(-1)! < completeUntil; ) {
      d = d.plus({ days: 1 }).startOf('day');
      edges.push(Math.min(d.toMillis(), completeUntil));
    }
    const range = { from: edges[0], to: edges.at(-1)! };
    const merged = mergeIntoDays(await hourlyRowsOfAllDimensions(db, websiteId, range), edges);
    await db.transaction().execute((trx) => replaceDailyRollups(trx, websiteId, range, merged, zone, Date.now()));
    days += edges.length - 1;
    cursor = range.to;
  }
  return { days, more: false };
}

/** Hourly rows grouped by (dimension, day, value): counters summed, visitor sets merged. `edges`: the days' starts, then the last day's end. */
function mergeIntoDays(hourly: Array<{ dimension: string; row: HourRow }>, edges: readonly number[]): Array<{ dimension: string; row: HourRow }> {
  const days = new Map<string, { dimension: string; row: HourRow }>();
  for (const { dimension, row } of hourly) {
    let d = 0;
    while (d + 1 < edges.length - 1 && row.hour >= edges[d + 1]) d++;
    const key = `${dimension}\u0000${d}\u0000${row.value}`;
    let day = days.get(key);
    if (!day) days.set(key, (day = { dimension, row: { hour: edges[d], value: row.value, visitors: 0, visits: 0, pageviews: 0, bounces: 0, duration_sum: 0, events: 0, sketch: new VisitorSketch() } }));
    const into = day.row;
    addCounters(into, row);
    into.sketch!.mergeBytes(row.sketchBytes!);
  }
  const out = [...days.values()];
  // A day's visitors: its merged set's count (exact while the set is exact).
  for (const { row } of out) row.visitors = row.sketch!.count();
  return out;
}

/** Registers the tick handler (the area's `jobs`). */
export function registerRollupJobs(operations: Operations, deps: AreaDeps): void {
  const { db, dialect } = deps.database;

  operations.register(ROLLUP_TICK, {
    async run(op) {
      const websiteId = op.websiteId!;
      const state = await loadRollupState(db, dialect, websiteId);
      if (!state || state.tickId !== op.id) return { running: false };
      const now = Date.now();
      const closed = closedBefore(now);

      await op.setStep('ROLLING_UP');
      let until = state.rolledUpUntil;
      let hours = 0;
      let batches = 0;
      let busy = false;
      while (true) {
        const next = await firstEventTime(db, websiteId, until ?? Number.MIN_SAFE_INTEGER);
        // Skip stretches without events (their hours have no rows): resume at the next event's hour.
        const from = next === undefined ? closed : Math.max(until ?? 0, Math.floor(next / HOUR_MS) * HOUR_MS);
        if (from >= closed) break;
        if (batches === MAX_BATCHES_PER_TICK) {
          busy = true;
          break;
        }
        await op.checkpoint();
        const to = Math.min(closed, from + HOURS_PER_BATCH * HOUR_MS);
        await rollUpHours(db, dialect, websiteId, { from, to }, Date.now());
        hours += (to - from) / HOUR_MS;
        batches++;
        until = to;
      }
      if (until !== null && until < closed && !busy) {
        // Nothing to roll up before `closed`: record that the empty hours are done.
        await markRolledUpUntil(db, websiteId, op.id, closed, Date.now());
        until = closed;
      }

      // Days only once the hours are all done (a busy tick comes back for both).
      if (!busy) {
        await op.checkpoint();
        const daily = await rollUpDays(db, dialect, websiteId, Date.now());
        if (daily.more) busy = true;
      }

      await op.setStep('PURGING');
      const retentionDays = await rawRetentionDays(db, dialect, websiteId);
      // Only what is rolled up may go: raw rows of open hours are all `:query` has of them.
      const purgeBefore = Math.min(now - retentionDays * DAY_MS, until ?? Number.MIN_SAFE_INTEGER);
      // Said before any row goes: from then on `:query` reads roll-ups for these hours, never half-purged raw rows.
      if ((state.purgedBefore ?? Number.MIN_SAFE_INTEGER) < purgeBefore) {
        await markPurgedBefore(db, websiteId, op.id, purgeBefore, Date.now());
      }
      let purged = 0;
      for (let round = 0; round < 20; round++) {
        await op.checkpoint();
        const deleted = await purgeRawBatch(db, websiteId, purgeBefore, PURGE_BATCH);
        purged += deleted;
        if (deleted === 0) break;
        if (round === 19) busy = true;
      }

      // The next tick: at once while work is left, when the next hour closes while raw rows remain, else none.
      await db.transaction().execute(async (trx) => {
        const current = await loadRollupState(trx, dialect, websiteId, true);
        if (current?.tickId !== op.id) return;
        // Read under the state's lock: a flush that wrote events before it saw this tick live (and did not arm).
        if (!busy && !(await hasRawRows(trx, websiteId))) {
          await clearTick(trx, websiteId, Date.now());
          return;
        }
        const runAfter = busy ? Date.now() + BUSY_TICK_MS : closed + HOUR_MS + VISIT_TIMEOUT_MS + 1_000;
        await enqueueTick(trx, operations, websiteId, state.accountId, Math.max(runAfter, Date.now() + 1_000), Date.now());
      });
      return { rolled_up_hours: hours, purged_rows: purged };
    },
    async onFailure(op, error) {
      // Given up (a worker died mid-tick too often): a fresh tick later keeps the chain alive. A `:cancel` stays.
      if (error.status === 'CANCELLED' || !op.websiteId) return;
      await db.transaction().execute(async (trx) => {
        const state = await loadRollupState(trx, dialect, op.websiteId!, true);
        if (state?.tickId !== op.id) return;
        await enqueueTick(trx, operations, op.websiteId!, state.accountId, Date.now() + RETRY_TICK_MS, Date.now());
      });
    },
  });
}
