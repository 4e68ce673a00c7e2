import type { Db, Trx } from '../db/schema.js';

/**
 * `request_id` keys outside the resource engine (sign-up): the answer stored under a scope and a
 * request id, so a repeated request answers it again. The engine's own creates keep theirs in write.ts.
 */

/** The stored result (JSON column: read with `dialect.readJson`) of a request id in a scope, if any. */
export async function storedIdempotentResult(db: Db | Trx, scope: string, requestId: string): Promise<{ result: unknown } | undefined> {
  return db.selectFrom('idempotency_keys').select('result').where('scope', '=', scope).where('request_id', '=', requestId).executeTakeFirst();
}

/** Stores the result (already `dialect.json`-encoded) of a request id in a scope, inside the caller's transaction. */
export async function storeIdempotentResult(db: Db | Trx, key: { scope: string; requestId: string; result: string; now: number }): Promise<void> {
  await db.insertInto('idempotency_keys').values({ scope: key.scope, request_id: key.requestId, result: key.result, create_time: key.now }).execute();
}
