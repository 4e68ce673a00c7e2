/** Where a generated screen stands: its context (website or account), the ids it knows, the member's rights. */
import { useParams } from '@tanstack/react-router';
import { useMyWebsites } from '../lib/websites';
import { useRights } from '../lib/rights';
import type { Endpoint } from '../lib/openapi-model/types.js';
import type { Context } from './placement';

export interface GenericContext {
  ctx: Context;
  /** `website_id` and/or `account_id` (a website's account, for references to AI runs and agents). */
  ids: Record<string, string>;
  /** Whether the member may call this endpoint (READ calls always; WRITE calls per their section). */
  allowed: (endpoint: Endpoint | undefined) => boolean;
}

export function useGenericContext(): GenericContext {
  const { websiteId, accountId: accountParam } = useParams({ strict: false }) as { websiteId?: string; accountId?: string };
  const { data: websites } = useMyWebsites();
  const accountId = accountParam ?? websites?.find((e) => e.website.id === websiteId)?.account.id;
  const rights = useRights(accountId, websiteId);
  const ctx: Context = websiteId ? { kind: 'website', websiteId } : { kind: 'account', accountId: accountParam ?? '' };
  const ids: Record<string, string> = {};
  if (websiteId) ids.website_id = websiteId;
  if (accountId) ids.account_id = accountId;
  return {
    ctx,
    ids,
    allowed: (endpoint) => {
      if (!endpoint) return false;
      // Until the rights are known, offer reads only; an endpoint without a stated right is left to the server.
      if (!rights) return endpoint.right?.level === 'READ';
      if (!endpoint.right) return true;
      return endpoint.right.level === 'READ' ? rights.canRead(endpoint.right.section) : rights.canWrite(endpoint.right.section);
    },
  };
}
