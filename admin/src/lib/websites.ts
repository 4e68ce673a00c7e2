import { useQuery } from '@tanstack/react-query';
import { ApiError, paginate, type MyWebsite } from '@siteplatform/sdk';
import { useApi } from './session';

export const MY_WEBSITES_KEY = ['my-websites'] as const;

/**
 * Every website the signed-in user reaches, with its account and project (the switcher's data):
 * accounts → projects → websites, as the SDK's `myWebsites` walks them, except that an account
 * whose projects the member may not list (no READ on `account`) is skipped instead of failing
 * the whole list.
 */
export function useMyWebsites() {
  const api = useApi();
  return useQuery({
    queryKey: MY_WEBSITES_KEY,
    queryFn: async () => {
      const all: MyWebsite[] = [];
      for await (const account of paginate(api, '/tenant-api/v1/accounts', {})) {
        try {
          for await (const project of paginate(api, '/tenant-api/v1/accounts/{account_id}/projects', { path: { account_id: account.id } })) {
            for await (const website of paginate(api, '/tenant-api/v1/projects/{project_id}/websites', { path: { project_id: project.id } })) {
              all.push({ account, project, website });
            }
          }
        } catch (err) {
          if (!ApiError.is(err, 'PERMISSION_DENIED')) throw err;
        }
      }
      return all;
    },
  });
}

export type { MyWebsite };
