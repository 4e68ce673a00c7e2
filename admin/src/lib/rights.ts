/**
 * What the signed-in member may do in an account (and its websites), read from the API
 * (`members:my_access`: role, effective grants, website limits), so screens offer only what the
 * member's role reaches. The server checks every call anyway.
 */
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from './session';

import { holds, type Grant } from './grants';

export { holds, type Grant };

export interface Rights {
  administrator: boolean;
  grants: readonly Grant[];
  canRead(section: string): boolean;
  canWrite(section: string): boolean;
}


export const myAccessKey = (accountId: string) => ['my-access', accountId] as const;

/** The member's rights in `accountId`; undefined while they load (or without an account). */
export function useRights(accountId: string | undefined, _websiteId?: string): Rights | undefined {
  const api = useApi();
  const query = useQuery({
    queryKey: myAccessKey(accountId ?? ''),
    enabled: !!accountId,
    queryFn: () => data(api.POST('/tenant-api/v1/accounts/{account_id}/members:my_access', { params: { path: { account_id: accountId! } } })),
    staleTime: 60_000,
  });
  const access = query.data;
  if (!access) return undefined;
  const grants = access.grants as Grant[];
  return {
    administrator: access.administrator,
    grants,
    canRead: (section) => holds(grants, section, 'READ'),
    canWrite: (section) => holds(grants, section, 'WRITE'),
  };
}
