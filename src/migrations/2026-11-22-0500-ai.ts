import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** AI and AI Billing: catalogues, instructions (+versions), agents (+versions), connections, executions, balance, ledger, usage. */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  const common = <T extends { addColumn: (...a: any[]) => T }>(t: T): T =>
    t
      .addColumn('revision', 'integer', (c: any) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c: any) => c.notNull())
      .addColumn('update_time', 'bigint', (c: any) => c.notNull());

  // Platform catalogues: loaded from the shipped data at start (upsert), read-only through the API.
  await common(
    db.schema
      .createTable('ai_models')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('capabilities', json, (c) => c.notNull())
      .addColumn('max_input_tokens', 'integer', (c) => c.notNull())
      .addColumn('max_output_tokens', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('tier', 'text', (c) => c.notNull())
      .addColumn('platform_priced', 'boolean', (c) => c.notNull())
      .addColumn('pricing', json, (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('ai_models_display_name').on('ai_models').columns(['display_name', 'id']).execute();
  await db.schema.createIndex('ai_models_create_time').on('ai_models').columns(['create_time', 'id']).execute();

  await common(
    db.schema
      .createTable('ai_system_agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('instruction_text', 'text', (c) => c.notNull())
      .addColumn('instruction_version', 'integer', (c) => c.notNull())
      .addColumn('variables', json, (c) => c.notNull())
      .addColumn('preferred_model_id', 'text')
      .addColumn('allowed_model_ids', json, (c) => c.notNull())
      .addColumn('allowed_tools', json, (c) => c.notNull())
      .addColumn('max_tokens', 'integer', (c) => c.notNull())
      .addColumn('effort', 'text')
      .addColumn('output_format', 'text', (c) => c.notNull())
      .addColumn('output_schema', json)
      .addColumn('image_width', 'integer')
      .addColumn('image_height', 'integer')
      .addColumn('image_quality', 'text')
      .addColumn('connection_mode', 'text', (c) => c.notNull())
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('timeout', 'text', (c) => c.notNull())
      .addColumn('is_enabled', 'boolean', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('ai_system_agents_display_name').on('ai_system_agents').columns(['display_name', 'id']).execute();
  await db.schema.createIndex('ai_system_agents_create_time').on('ai_system_agents').columns(['create_time', 'id']).execute();

  await common(
    db.schema
      .createTable('ai_instructions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('variables', json, (c) => c.notNull())
      .addColumn('active_version', 'integer', (c) => c.notNull())
      .addColumn('latest_version', 'integer', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('ai_instructions_account_create_time').on('ai_instructions').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('ai_instructions_account_display_name').on('ai_instructions').columns(['account_id', 'display_name', 'id']).execute();

  // Versions outlive their instruction (runs resolved them); only the account's deletion removes them.
  await common(
    db.schema
      .createTable('ai_instruction_versions')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ai_instruction_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('notes', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ai_instruction_versions_pk', ['ai_instruction_id', 'id']),
  ).execute();
  await db.schema.createIndex('ai_instruction_versions_order').on('ai_instruction_versions').columns(['ai_instruction_id', 'version', 'id']).execute();
  await db.schema.createIndex('ai_instruction_versions_create_time').on('ai_instruction_versions').columns(['ai_instruction_id', 'create_time', 'id']).execute();

  await common(
    db.schema
      .createTable('ai_agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('instruction_id', 'text', (c) => c.notNull())
      .addColumn('instruction_version', 'integer')
      .addColumn('preferred_model_id', 'text')
      .addColumn('allowed_model_ids', json, (c) => c.notNull())
      .addColumn('max_tokens', 'integer', (c) => c.notNull())
      .addColumn('effort', 'text')
      .addColumn('output_format', 'text', (c) => c.notNull())
      .addColumn('output_schema', json)
      .addColumn('image_width', 'integer')
      .addColumn('image_height', 'integer')
      .addColumn('image_quality', 'text')
      .addColumn('connection_mode', 'text', (c) => c.notNull())
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('timeout', 'text', (c) => c.notNull())
      .addColumn('allowed_tools', json, (c) => c.notNull())
      .addColumn('is_enabled', 'boolean', (c) => c.notNull())
      .addColumn('source_system_agent', 'text')
      .addColumn('version', 'integer', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('ai_agents_account_create_time').on('ai_agents').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('ai_agents_account_display_name').on('ai_agents').columns(['account_id', 'display_name', 'id']).execute();
  await db.schema.createIndex('ai_agents_account_instruction').on('ai_agents').columns(['account_id', 'instruction_id']).execute();

  // Kept after the agent is deleted: runs refer to the version they resolved.
  await common(
    db.schema
      .createTable('ai_agent_versions')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ai_agent_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('snapshot', json, (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ai_agent_versions_pk', ['ai_agent_id', 'id']),
  ).execute();
  await db.schema.createIndex('ai_agent_versions_order').on('ai_agent_versions').columns(['ai_agent_id', 'version', 'id']).execute();

  await common(
    db.schema
      .createTable('ai_connections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('display_name', 'text')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('api_key_sealed', 'text')
      .addColumn('key_hint', 'text')
      .addColumn('is_enabled', 'boolean', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('last_verify_time', 'bigint'),
  ).execute();
  await db.schema.createIndex('ai_connections_account_create_time').on('ai_connections').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('ai_connections_account_display_name').on('ai_connections').columns(['account_id', 'display_name', 'id']).execute();
  await db.schema.createIndex('ai_connections_account_last_verify_time').on('ai_connections').columns(['account_id', 'last_verify_time', 'id']).execute();
  // One MANAGED connection per provider and account, enforced by the database.
  await db.schema
    .createIndex('ai_connections_one_managed')
    .on('ai_connections')
    .columns(['account_id', 'provider'])
    .unique()
    .where(sql.ref('mode'), '=', sql.lit('MANAGED'))
    .execute();

  await common(
    db.schema
      .createTable('ai_executions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('agent_version', 'integer', (c) => c.notNull())
      .addColumn('instruction_id', 'text', (c) => c.notNull())
      .addColumn('instruction_version', 'integer', (c) => c.notNull())
      .addColumn('model_id', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('input', json, (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('connection_id', 'text')
      .addColumn('connection_mode', 'text')
      .addColumn('byok_only', 'boolean', (c) => c.notNull())
      .addColumn('usage', json, (c) => c.notNull())
      .addColumn('cost_nanos', 'bigint')
      .addColumn('output', json)
      .addColumn('error', json)
      .addColumn('attempts', json, (c) => c.notNull())
      .addColumn('source_module', 'text')
      .addColumn('source_id', 'text')
      .addColumn('metadata', json)
      .addColumn('expire_time', 'bigint')
      .addColumn('start_time', 'bigint')
      .addColumn('end_time', 'bigint')
      .addColumn('cancel_requested', 'boolean', (c) => c.notNull())
      .addColumn('operation_id', 'text', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('ai_executions_account_create_time').on('ai_executions').columns(['account_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('ai_executions_account_expire_time').on('ai_executions').columns(['account_id', 'expire_time', 'id']).execute();
  await db.schema.createIndex('ai_executions_account_state').on('ai_executions').columns(['account_id', 'state', 'create_time', 'id']).execute();
  await db.schema.createIndex('ai_executions_account_agent').on('ai_executions').columns(['account_id', 'agent_id', 'create_time', 'id']).execute();

  // AI Billing: one balance row per account (id = account id), amounts in integer nano-dollars.
  await common(
    db.schema
      .createTable('ai_billing')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('balance_nanos', 'bigint', (c) => c.notNull())
      .addColumn('monthly_limit_nanos', 'bigint')
      .addColumn('run_limit_nanos', 'bigint')
      .addColumn('month', 'text', (c) => c.notNull())
      .addColumn('month_spend_nanos', 'bigint', (c) => c.notNull()),
  ).execute();

  await common(
    db.schema
      .createTable('ai_ledger_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount_nanos', 'bigint', (c) => c.notNull())
      .addColumn('balance_after_nanos', 'bigint', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('execution_id', 'text')
      .addColumn('attempt_number', 'integer'),
  ).execute();
  await db.schema.createIndex('ai_ledger_entries_account_create_time').on('ai_ledger_entries').columns(['account_id', 'create_time', 'id']).execute();

  await common(
    db.schema
      .createTable('ai_usage_records')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('execution_id', 'text', (c) => c.notNull())
      .addColumn('attempt_number', 'integer', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('model_id', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('connection_id', 'text', (c) => c.notNull())
      .addColumn('connection_mode', 'text', (c) => c.notNull())
      .addColumn('input_tokens', 'integer', (c) => c.notNull())
      .addColumn('output_tokens', 'integer', (c) => c.notNull())
      .addColumn('cache_read_input_tokens', 'integer', (c) => c.notNull())
      .addColumn('cache_creation_input_tokens', 'integer', (c) => c.notNull())
      .addColumn('image_count', 'integer', (c) => c.notNull())
      .addColumn('megapixels_milli', 'integer', (c) => c.notNull())
      .addColumn('cost_nanos', 'bigint'),
  ).execute();
  await db.schema.createIndex('ai_usage_records_account_create_time').on('ai_usage_records').columns(['account_id', 'create_time', 'id']).execute();
}

export async function down(): Promise<void> {
  // Frozen.
}
