import type { Db, Trx } from '../platform/db/schema.js';
import type { Operations } from '../platform/jobs/operations.js';

/**
 * Work another area continues once one of its runs ends: `source_module` → Operation type. The
 * execution worker enqueues that Operation (payload `{execution_id}`) in the same transaction that
 * writes the run's final state, so the follow-up is as durable as the state itself: a worker dying
 * between the two cannot lose it. The handler must check the run is one it started (`source_id`
 * is caller-chosen: any member may create a run naming any module).
 */
const followUps = new Map<string, string>();

export function registerRunFollowUp(sourceModule: string, operationType: string): void {
  followUps.set(sourceModule, operationType);
}

/** Enqueues the follow-up of a run that just reached a final state, when its module registered one. */
export async function enqueueRunFollowUp(trx: Db | Trx, operations: Operations, exec: { id: string; account_id: string; source_module?: string | null }, now: number): Promise<boolean> {
  const type = exec.source_module ? followUps.get(exec.source_module) : undefined;
  if (!type) return false;
  await operations.enqueue(trx, { type, accountId: exec.account_id, payload: { execution_id: exec.id }, step: 'RUN_ENDED' }, now);
  return true;
}
