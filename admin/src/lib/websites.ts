import { useQuery } from '@tanstack/react-query';
import { myWebsites, type MyWebsite } from '@siteplatform/sdk';
import { useApi } from './session';

export const MY_WEBSITES_KEY = ['my-websites'] as const;

/** Every website the signed-in user reaches, with its account and project (the switcher's data). */
export function useMyWebsites() {
  const api = useApi();
  return useQuery({
    queryKey: MY_WEBSITES_KEY,
    queryFn: async () => {
      const all: MyWebsite[] = [];
      for await (const entry of myWebsites(api)) all.push(entry);
      return all;
    },
  });
}

export type { MyWebsite };
