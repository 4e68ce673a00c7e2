import type { Kysely } from 'kysely';
import { addTextIndex } from './text-indexes.js';

/**
 * Every declared List answers from an index (issue "Lists fast at scale"). Engine queries carry
 * exactly their path's ids (`website_id`, or `account_id`/`project_id`, plus nested parent ids), so
 * an index leading with those columns and holding the filtered field answers a List's count on its
 * own (SQLite: a covering index; PostgreSQL: an index-only scan) and its page from one range:
 *
 * - one `(parent…, field, id)` index per filterable field no earlier index leads with, and per
 *   sortable field without one (orders and keyset conditions);
 * - booleans and enums as `(parent…, field, default-order column, id)`, so "the active ones, newest
 *   first" is one index range in order;
 * - `field:"text"` (contains) on declared string fields: a trigram index per table over its
 *   filterable string columns. PostgreSQL: one pg_trgm GIN index over all of them (a multicolumn GIN
 *   index searches any one column as well as a single-column one, and one index per table is one
 *   structure to maintain). SQLite: an FTS5 table `<table>_fts` with the trigram tokenizer, external
 *   content (the table itself, joined by rowid; every table here is a rowid table), kept in step by
 *   triggers and filled once here.
 *
 * JSON-array (`string_list`) filters without a side table cannot be answered from these indexes and
 * are left to the page's range scan of the parent.
 */

/** [table, index name, columns]: only indexes no earlier migration created. */
const INDEXES: Array<[string, string, string[]]> = [
  ['websites', 'websites_project_code', ['project_id', 'code', 'id']],
  ['websites', 'websites_project_provisioning_status', ['project_id', 'provisioning_status', 'create_time', 'id']],
  ['websites', 'websites_project_default_language', ['project_id', 'default_language', 'id']],

  ['views', 'views_is_default_create_time', ['website_id', 'is_default', 'create_time', 'id']],
  ['views', 'views_is_active_create_time', ['website_id', 'is_active', 'create_time', 'id']],
  ['views', 'views_fallback_view_id', ['website_id', 'fallback_view_id', 'id']],

  ['customer_attribute_groups', 'customer_attribute_groups_website_display_name', ['website_id', 'display_name', 'id']],
  ['customer_attributes', 'customer_attributes_website_display_name', ['website_id', 'display_name', 'id']],
  ['customer_attributes', 'customer_attributes_website_is_active_sort_order', ['website_id', 'is_active', 'sort_order', 'id']],
  ['customer_attributes', 'customer_attributes_website_is_required_sort_order', ['website_id', 'is_required', 'sort_order', 'id']],
  ['customer_attributes', 'customer_attributes_website_registration_sort_order', ['website_id', 'show_in_registration', 'sort_order', 'id']],
  ['customer_attributes', 'customer_attributes_website_type_sort_order', ['website_id', 'type', 'sort_order', 'id']],
  ['customer_groups', 'customer_groups_website_priority', ['website_id', 'priority', 'id']],
  ['customer_groups', 'customer_groups_website_type_create_time', ['website_id', 'type', 'create_time', 'id']],
  ['customers', 'customers_website_display_name', ['website_id', 'display_name', 'id']],
  ['customers', 'customers_website_is_active_create_time', ['website_id', 'is_active', 'create_time', 'id']],

  ['media', 'media_website_alt_text', ['website_id', 'alt_text', 'id']],
  ['media', 'media_website_title', ['website_id', 'title', 'id']],
  ['media', 'media_website_is_image_create_time', ['website_id', 'is_image', 'create_time', 'id']],

  ['cms_pages', 'cms_pages_meta_robots_create_time', ['website_id', 'meta_robots', 'create_time', 'id']],
  ['cms_page_views', 'cms_page_views_update_time', ['website_id', 'cms_page_id', 'update_time', 'id']],
  ['cms_page_groups', 'cms_page_groups_update_time', ['website_id', 'cms_page_id', 'update_time', 'id']],
  ['cms_page_groups', 'cms_page_groups_is_active_priority', ['website_id', 'cms_page_id', 'is_active', 'priority', 'id']],
  ['cms_blocks', 'cms_blocks_is_active_create_time', ['website_id', 'is_active', 'create_time', 'id']],
  ['cms_block_views', 'cms_block_views_update_time', ['website_id', 'cms_block_id', 'update_time', 'id']],
  ['navigation_menus', 'navigation_menus_update_time', ['website_id', 'update_time', 'id']],
  ['navigation_items', 'navigation_items_sort_order', ['website_id', 'navigation_menu_id', 'sort_order', 'id']],
  ['navigation_items', 'navigation_items_level', ['website_id', 'navigation_menu_id', 'level', 'id']],
  ['navigation_items', 'navigation_items_parent_id', ['website_id', 'navigation_menu_id', 'parent_id', 'id']],
  ['navigation_items', 'navigation_items_create_time', ['website_id', 'navigation_menu_id', 'create_time', 'id']],
  ['navigation_items', 'navigation_items_update_time', ['website_id', 'navigation_menu_id', 'update_time', 'id']],
  ['navigation_items', 'navigation_items_label', ['website_id', 'navigation_menu_id', 'label', 'id']],
  ['navigation_items', 'navigation_items_cms_page_id', ['website_id', 'navigation_menu_id', 'cms_page_id', 'id']],
  ['navigation_items', 'navigation_items_is_active_path', ['website_id', 'navigation_menu_id', 'is_active', 'path', 'id']],

  ['ai_instructions', 'ai_instructions_account_active_version', ['account_id', 'active_version', 'id']],
  // Versions are listed under account and instruction: the earlier indexes lack the account.
  ['ai_instruction_versions', 'ai_instruction_versions_account_version', ['account_id', 'ai_instruction_id', 'version', 'id']],
  ['ai_instruction_versions', 'ai_instruction_versions_account_create_time', ['account_id', 'ai_instruction_id', 'create_time', 'id']],
  ['ai_instruction_versions', 'ai_instruction_versions_account_created_by', ['account_id', 'ai_instruction_id', 'created_by', 'id']],
  ['ai_agents', 'ai_agents_account_is_enabled_create_time', ['account_id', 'is_enabled', 'create_time', 'id']],
  ['ai_agents', 'ai_agents_account_preferred_model', ['account_id', 'preferred_model_id', 'id']],
  ['ai_agents', 'ai_agents_account_version', ['account_id', 'version', 'id']],
  ['ai_agent_versions', 'ai_agent_versions_account_version', ['account_id', 'ai_agent_id', 'version', 'id']],
  ['ai_agent_versions', 'ai_agent_versions_account_created_by', ['account_id', 'ai_agent_id', 'created_by', 'id']],
  ['ai_connections', 'ai_connections_account_is_enabled_create_time', ['account_id', 'is_enabled', 'create_time', 'id']],
  ['ai_connections', 'ai_connections_account_mode_create_time', ['account_id', 'mode', 'create_time', 'id']],
  ['ai_connections', 'ai_connections_account_provider_create_time', ['account_id', 'provider', 'create_time', 'id']],
  ['ai_connections', 'ai_connections_account_status_create_time', ['account_id', 'status', 'create_time', 'id']],
  ['ai_executions', 'ai_executions_account_connection', ['account_id', 'connection_id', 'id']],
  ['ai_executions', 'ai_executions_account_connection_mode_create_time', ['account_id', 'connection_mode', 'create_time', 'id']],
  ['ai_executions', 'ai_executions_account_end_time', ['account_id', 'end_time', 'id']],
  ['ai_executions', 'ai_executions_account_model', ['account_id', 'model_id', 'id']],
  ['ai_executions', 'ai_executions_account_provider', ['account_id', 'provider', 'id']],
  ['ai_executions', 'ai_executions_account_source_id', ['account_id', 'source_id', 'id']],
  ['ai_executions', 'ai_executions_account_source_module', ['account_id', 'source_module', 'id']],
  ['ai_executions', 'ai_executions_account_start_time', ['account_id', 'start_time', 'id']],
  ['ai_ledger_entries', 'ai_ledger_entries_account_kind_create_time', ['account_id', 'kind', 'create_time', 'id']],
  ['ai_ledger_entries', 'ai_ledger_entries_account_execution', ['account_id', 'execution_id', 'id']],
  ['ai_usage_records', 'ai_usage_records_account_agent', ['account_id', 'agent_id', 'id']],
  ['ai_usage_records', 'ai_usage_records_account_execution', ['account_id', 'execution_id', 'id']],
  ['ai_usage_records', 'ai_usage_records_account_model', ['account_id', 'model_id', 'id']],
  ['ai_usage_records', 'ai_usage_records_account_provider', ['account_id', 'provider', 'id']],
  ['ai_usage_records', 'ai_usage_records_account_connection_mode_create_time', ['account_id', 'connection_mode', 'create_time', 'id']],
];

/** Per table, the string columns Lists filter with `field:"text"` (their declared filterable strings). */
const TEXT_COLUMNS: Record<string, string[]> = {
  accounts: ['display_name'],
  projects: ['display_name'],
  websites: ['display_name', 'code', 'default_language'],
  views: ['display_name', 'locale', 'url_prefix', 'fallback_view_id'],
  customer_attribute_groups: ['display_name'],
  customer_attributes: ['display_name', 'group_id', 'key'],
  customer_groups: ['display_name'],
  customers: ['display_name', 'email'],
  media: ['alt_text', 'filename', 'folder_id', 'mime_type', 'original_filename', 'title'],
  media_folders: ['display_name', 'parent_id', 'path'],
  cms_pages: ['title', 'url_key'],
  cms_blocks: ['title', 'identifier'],
  navigation_menus: ['display_name', 'identifier'],
  navigation_items: ['label', 'parent_id', 'path', 'cms_page_id'],
  ai_models: ['display_name', 'external_id'],
  ai_system_agents: ['display_name'],
  ai_instructions: ['display_name'],
  ai_instruction_versions: ['created_by'],
  ai_agents: ['display_name', 'instruction_id', 'preferred_model_id'],
  ai_agent_versions: ['created_by'],
  ai_connections: ['display_name'],
  ai_executions: ['agent_id', 'connection_id', 'model_id', 'provider', 'source_id', 'source_module'],
  ai_ledger_entries: ['execution_id'],
  ai_usage_records: ['agent_id', 'execution_id', 'model_id', 'provider'],
};

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, name, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();

  for (const [table, columns] of Object.entries(TEXT_COLUMNS)) await addTextIndex(db, table, columns);
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
