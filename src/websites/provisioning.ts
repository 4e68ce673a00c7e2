import { FailedPrecondition } from '../platform/errors.js';
import type { OperationHandler } from '../platform/jobs/operations.js';
import type { ProvisioningStep } from '../platform/area.js';
import type { Db } from '../platform/db/schema.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { setProvisioningStatus, websiteById } from './websites.repo.js';

export const PROVISION_WEBSITE = 'PROVISION_WEBSITE';

export type { ProvisioningStep };

/**
 * The PROVISION_WEBSITE handler: runs the steps in order with a checkpoint between them, then marks
 * the website ACTIVE and answers it (with `website_url`). Any failure marks it FAILED.
 */
export function provisioningHandler(deps: { db: Db; steps: ProvisioningStep[]; websites: () => ResourceService }): OperationHandler {
  const loadWebsite = async (id: string) => {
    const row = await websiteById(deps.db, id);
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
      await setProvisioningStatus(deps.db, website.id, 'ACTIVE', Date.now());
      return deps.websites().toResource(await loadWebsite(website.id));
    },
    async onFailure(op) {
      if (!op.websiteId) return;
      await setProvisioningStatus(deps.db, op.websiteId, 'FAILED', Date.now());
    },
  };
}
