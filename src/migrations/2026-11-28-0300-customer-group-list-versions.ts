import type { Kysely } from 'kysely';
import { addListVersionTriggers } from './list-versions.js';

/**
 * The customers List filters by `group_ids` through `customer_group_members` (a semi-join, like
 * `customer_tags`): a write there changes which customers a filtered page holds, so it bumps the
 * customers' list version as the tags' side table does (cached pages and counts follow).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await addListVersionTriggers(db, 'customer_group_members', 'website_id', 'customers');
}
