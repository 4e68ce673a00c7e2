import type { Insertable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/**
 * AI Billing's SQL: the balance row, its ledger and the per-attempt usage records. No rules here;
 * every function takes the executor first so it runs inside the caller's transaction.
 */
type Executor = Db | Trx;

/** The account's balance row, or undefined. */
export function findBilling(db: Executor, accountId: string) {
  return db.selectFrom('ai_billing').selectAll().where('id', '=', accountId).executeTakeFirst();
}

/** The account's balance row locked until the transaction ends, or undefined. */
export function lockBilling(db: Executor, dialect: SqlDialect, accountId: string) {
  return dialect.forUpdate(db.selectFrom('ai_billing').selectAll().where('id', '=', accountId)).executeTakeFirst();
}

/** The balance row of a new account. */
export async function insertBilling(db: Executor, row: Insertable<DB['ai_billing']>): Promise<void> {
  await db.insertInto('ai_billing').values(row).execute();
}

/** Writes the balance (and month spend) of an account. */
export async function updateBilling(
  db: Executor,
  accountId: string,
  fields: { balance_nanos: number; month?: string; month_spend_nanos?: number; revision: number; update_time: number },
): Promise<void> {
  await db.updateTable('ai_billing').set(fields).where('id', '=', accountId).execute();
}

/** One ledger entry (append-only). */
export async function insertLedgerEntry(db: Executor, row: Insertable<DB['ai_ledger_entries']>): Promise<void> {
  await db.insertInto('ai_ledger_entries').values(row).execute();
}

/** One usage record of a finished attempt. */
export async function insertUsageRecord(db: Executor, row: Insertable<DB['ai_usage_records']>): Promise<void> {
  await db.insertInto('ai_usage_records').values(row).execute();
}
