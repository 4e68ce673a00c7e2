/** Team screens' data: the account in the URL, the catalogues (permissions, built-in roles), account roles, websites. */
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { data, paginate, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { useRights } from '../../lib/rights';

export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type AccountRole = Schemas['AccountRole'];

export function useTeamAccount() {
  const { accountId } = useParams({ from: '/signed-in/a/$accountId' });
  const rights = useRights(accountId);
  return { accountId, rights, canManage: rights?.canWrite('account.members') ?? false };
}

export const teamKeys = {
  members: (a: string) => ['team', a, 'members'] as const,
  invitations: (a: string) => ['team', a, 'invitations'] as const,
  roles: (a: string) => ['team', a, 'account_roles'] as const,
  websites: (a: string) => ['team', a, 'websites'] as const,
};

export function usePermissions() {
  const api = useApi();
  return useQuery({
    queryKey: ['permissions'],
    queryFn: () => data(api.GET('/tenant-api/v1/permissions', { params: { query: { page_size: 100 } } })).then((r) => r.permissions),
    staleTime: 3_600_000,
  });
}

export function useBuiltInRoles() {
  const api = useApi();
  return useQuery({
    queryKey: ['roles'],
    queryFn: () => data(api.GET('/tenant-api/v1/roles', { params: { query: { page_size: 100 } } })).then((r) => r.roles),
    staleTime: 3_600_000,
  });
}

export function useAccountRoles(accountId: string, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: teamKeys.roles(accountId),
    enabled,
    queryFn: async () => {
      const all: AccountRole[] = [];
      for await (const r of paginate(api, '/tenant-api/v1/accounts/{account_id}/account_roles', { path: { account_id: accountId } })) all.push(r);
      return all;
    },
  });
}

/** The account's websites (for website limits), with their project's name. */
export function useAccountWebsites(accountId: string) {
  const api = useApi();
  return useQuery({
    queryKey: teamKeys.websites(accountId),
    queryFn: async () => {
      const all: { id: string; label: string }[] = [];
      for await (const p of paginate(api, '/tenant-api/v1/accounts/{account_id}/projects', { path: { account_id: accountId } }))
        for await (const w of paginate(api, '/tenant-api/v1/projects/{project_id}/websites', { path: { project_id: p.id } })) all.push({ id: w.id, label: w.display_name ?? w.id });
      return all;
    },
  });
}

/** Role choices for a member or an invitation: the built-in roles, then the account's own. */
export function useRoleOptions(accountId: string) {
  const builtIn = useBuiltInRoles();
  const own = useAccountRoles(accountId);
  const options = [
    ...(builtIn.data ?? []).map((r) => ({ value: r.name, label: r.display_name ?? r.id })),
    ...(own.data ?? []).map((r) => ({ value: r.name, label: r.display_name })),
  ];
  const label = (name: string | undefined) => options.find((o) => o.value === name)?.label ?? name ?? '—';
  return { options, label, isPending: builtIn.isPending || own.isPending };
}
