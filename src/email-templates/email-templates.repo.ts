import type { Insertable } from 'kysely';
import type { Db, DB, Trx } from '../platform/db/schema.js';

/** Statements over `email_templates` outside the engine's own (provisioning, a website's mail). */

/** Inserts the templates a website lacks (provisioning; a re-run leaves stored ones as they are). */
export async function insertTemplatesOnce(db: Db | Trx, templates: Insertable<DB['email_templates']>[]): Promise<void> {
  await db
    .insertInto('email_templates')
    .values(templates)
    .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
    .execute();
}

/** The website's stored template of a kind (its id is the kind). */
export async function storedTemplate(db: Db | Trx, websiteId: string, kind: string): Promise<{ subject: string; body: string; text_body: string | null } | undefined> {
  return db.selectFrom('email_templates').select(['subject', 'body', 'text_body']).where('website_id', '=', websiteId).where('id', '=', kind).executeTakeFirst();
}
