import type { Insertable, Updateable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/**
 * The AI area's SQL: instructions, agents, connections, runs and the catalogue tables. No rules
 * here; every function takes the executor first so it runs inside the caller's transaction.
 */
type Executor = Db | Trx;

// --- instructions ---

/** An instruction's id and latest version, when it belongs to the account. */
export function findInstructionHead(db: Executor, accountId: string, instructionId: string) {
  return db.selectFrom('ai_instructions').select(['id', 'latest_version']).where('account_id', '=', accountId).where('id', '=', instructionId).executeTakeFirst();
}

/** An instruction of the account, every column. */
export function findInstruction(db: Executor, accountId: string, instructionId: string) {
  return db.selectFrom('ai_instructions').selectAll().where('account_id', '=', accountId).where('id', '=', instructionId).executeTakeFirst();
}

/** An instruction by id, locked for the rest of the transaction (version numbering). */
export function lockInstruction(db: Executor, dialect: SqlDialect, instructionId: string) {
  return dialect.forUpdate(db.selectFrom('ai_instructions').selectAll().where('id', '=', instructionId)).executeTakeFirstOrThrow();
}

/** A new instruction row. */
export async function insertInstruction(db: Executor, row: Insertable<DB['ai_instructions']>): Promise<void> {
  await db.insertInto('ai_instructions').values(row).execute();
}

/** Moves an instruction's latest (and maybe active) version. */
export async function updateInstructionVersions(
  db: Executor,
  instructionId: string,
  fields: { latest_version: number; active_version?: number; revision: number; update_time: number },
): Promise<void> {
  await db.updateTable('ai_instructions').set(fields).where('id', '=', instructionId).execute();
}

/** One version of an instruction, or undefined. */
export function findInstructionVersion(db: Executor, instructionId: string, version: number) {
  return db.selectFrom('ai_instruction_versions').selectAll().where('ai_instruction_id', '=', instructionId).where('id', '=', String(version)).executeTakeFirst();
}

/** The template text of one version of an instruction (it must exist). */
export function instructionVersionContent(db: Executor, instructionId: string, version: number) {
  return db.selectFrom('ai_instruction_versions').select('content').where('ai_instruction_id', '=', instructionId).where('id', '=', String(version)).executeTakeFirstOrThrow();
}

/** The active version of an instruction of the account. */
export function instructionActiveVersion(db: Executor, accountId: string, instructionId: string) {
  return db.selectFrom('ai_instructions').select('active_version').where('account_id', '=', accountId).where('id', '=', instructionId).executeTakeFirst();
}

/** The template text of one version of an instruction, or undefined. */
export function findInstructionVersionContent(db: Executor, instructionId: string, version: number | string) {
  return db.selectFrom('ai_instruction_versions').select('content').where('ai_instruction_id', '=', instructionId).where('id', '=', String(version)).executeTakeFirst();
}

/** A new (immutable) instruction version row. */
export async function insertInstructionVersion(db: Executor, row: Insertable<DB['ai_instruction_versions']>): Promise<void> {
  await db.insertInto('ai_instruction_versions').values(row).execute();
}

// --- agents ---

/** An agent of the account, every column. */
export function findAgent(db: Executor, accountId: string, agentId: string) {
  return db.selectFrom('ai_agents').selectAll().where('account_id', '=', accountId).where('id', '=', agentId).executeTakeFirst();
}

/** Whether the account has an agent with this id. */
export function agentExists(db: Executor, accountId: string, agentId: string) {
  return db.selectFrom('ai_agents').select('id').where('account_id', '=', accountId).where('id', '=', agentId).executeTakeFirst();
}

/** The instruction an agent of the account runs, and the version it pins. */
export function agentInstruction(db: Executor, accountId: string, agentId: string) {
  return db.selectFrom('ai_agents').select(['instruction_id', 'instruction_version']).where('account_id', '=', accountId).where('id', '=', agentId).executeTakeFirst();
}

/** One agent of the account that uses an instruction, if any. */
export function firstAgentUsingInstruction(db: Executor, accountId: string, instructionId: string) {
  return db.selectFrom('ai_agents').select('id').where('account_id', '=', accountId).where('instruction_id', '=', instructionId).limit(1).executeTakeFirst();
}

/** A new (immutable) agent version row. */
export async function insertAgentVersion(db: Executor, row: Insertable<DB['ai_agent_versions']>): Promise<void> {
  await db.insertInto('ai_agent_versions').values(row).execute();
}

/** The settings snapshot of one agent version (it must exist). */
export function agentVersionSnapshot(db: Executor, agentId: string, version: number) {
  return db.selectFrom('ai_agent_versions').select('snapshot').where('ai_agent_id', '=', agentId).where('id', '=', String(version)).executeTakeFirstOrThrow();
}

// --- connections ---

/** New connection rows (the MANAGED ones of a new account). */
export async function insertConnections(db: Executor, rows: Array<Insertable<DB['ai_connections']>>): Promise<void> {
  await db.insertInto('ai_connections').values(rows).execute();
}

/**
 * The enabled connections of an account for one provider, of every mode in `modes` (one condition
 * each: both together match none), in the order runs try them (lowest `priority` first, then oldest).
 */
export function enabledConnections(db: Executor, dialect: SqlDialect, accountId: string, provider: string, modes: ReadonlyArray<'BYOK' | 'MANAGED'>) {
  let query = db
    .selectFrom('ai_connections')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('provider', '=', provider)
    .where('is_enabled', '=', dialect.bool(true));
  for (const mode of modes) query = query.where('mode', '=', mode);
  return query.orderBy('priority').orderBy('create_time').orderBy('id').execute();
}

/** Marks a BYOK connection's key refused by its provider (a MANAGED connection is left alone). */
export async function markConnectionInvalid(db: Executor, connectionId: string, now: number): Promise<void> {
  await db
    .updateTable('ai_connections')
    .set((eb) => ({ status: 'INVALID', revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', connectionId)
    .where('mode', '=', 'BYOK')
    .execute();
}

// --- executions ---

/** A run by id, every column. */
export function findExecution(db: Executor, executionId: string) {
  return db.selectFrom('ai_executions').selectAll().where('id', '=', executionId).executeTakeFirst();
}

/** A run of the account by id (its id only). */
export function executionExists(db: Executor, accountId: string, executionId: string) {
  return db.selectFrom('ai_executions').select('id').where('account_id', '=', accountId).where('id', '=', executionId).executeTakeFirst();
}

/** Writes fields of a run (revision + 1, `update_time` now); answers the row as written. */
export function updateExecution(db: Executor, executionId: string, fields: Updateable<DB['ai_executions']>, now: number) {
  return db
    .updateTable('ai_executions')
    .set((eb) => ({ ...fields, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', executionId)
    .returningAll()
    .executeTakeFirst();
}

/** A run's usage and cost so far, locked until the transaction ends (an attempt is being recorded). */
export function lockExecutionUsage(db: Executor, dialect: SqlDialect, executionId: string) {
  return dialect.forUpdate(db.selectFrom('ai_executions').select(['usage', 'cost_nanos']).where('id', '=', executionId)).executeTakeFirstOrThrow();
}

// --- catalogue ---

/** Inserts or updates one catalogue model by id. */
export async function upsertModel(db: Executor, id: string, createTime: number, row: Omit<Insertable<DB['ai_models']>, 'id' | 'revision' | 'create_time'>): Promise<void> {
  await db
    .insertInto('ai_models')
    .values({ id, ...row, revision: 1, create_time: createTime })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, revision: (eb) => eb('ai_models.revision', '+', 1) }))
    .execute();
}

/** Inserts or updates one catalogue system agent by id. */
export async function upsertSystemAgent(db: Executor, id: string, createTime: number, row: Omit<Insertable<DB['ai_system_agents']>, 'id' | 'revision' | 'create_time'>): Promise<void> {
  await db
    .insertInto('ai_system_agents')
    .values({ id, ...row, revision: 1, create_time: createTime })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, revision: (eb) => eb('ai_system_agents.revision', '+', 1) }))
    .execute();
}
