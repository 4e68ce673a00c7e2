/** Every resource of a List (all pages), for screens that show a whole tree or calendar. */
import { paginate, type ListItem, type TenantClient } from '@siteplatform/sdk';

export async function listAll<P extends Parameters<typeof paginate>[1]>(client: TenantClient, path: P, params: Parameters<typeof paginate<P>>[2]): Promise<ListItem<P>[]> {
  const out: ListItem<P>[] = [];
  for await (const item of paginate(client, path, params)) out.push(item);
  return out;
}
