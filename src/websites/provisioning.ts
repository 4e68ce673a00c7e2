import type { Kysely } from 'kysely';
import { FailedPrecondition } from '../platform/errors.js';
import type { OperationHandler } from '../platform/jobs/operations.js';
import type { ProvisioningStep } from '../platform/area.js';
import type { ResourceService } from '../platform/resource/engine.js';

export const PROVISION_WEBSITE = 'PROVISION_WEBSITE';

export type { ProvisioningStep };

/**
 * The PROVISION_WEBSITE handler: runs the steps in order with a checkpoint between them, then marks
 * the website ACTIVE and answers it (with `website_url`). Any failure marks it FAILED.
 */
export function provisioningHandler(deps: { db: Kysely<any>; steps: ProvisioningStep[]; websites: () => ResourceService }): OperationHandler {
  const loadWebsite = async (id: string) => {
    const row = await deps.db.selectFrom('websites').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new FailedPrecondition('WEBSITE_DELETED', `website ${id} was deleted while it was being provisioned`);
    return row;
  };
  return {
    async run(op) {
      const website = await loadWebsite(op.websiteId!);
      for (const step of deps.steps) {
        await op.checkpoint();
        await op.setStep(step.name);
        await step.run(deps.db, website, op);
      }
      await op.checkpoint();
      await op.setStep('ACTIVATE');
      await deps.db
        .updateTable('websites')
        .set((eb) => ({ provisioning_status: 'ACTIVE', revision: eb('revision', '+', 1), update_time: Date.now() }))
        .where('id', '=', website.id)
        .execute();
      return deps.websites().toResource(await loadWebsite(website.id));
    },
    async onFailure(op) {
      if (!op.websiteId) return;
      await deps.db
        .updateTable('websites')
        .set((eb) => ({ provisioning_status: 'FAILED', revision: eb('revision', '+', 1), update_time: Date.now() }))
        .where('id', '=', op.websiteId)
        .execute();
    },
  };
}
