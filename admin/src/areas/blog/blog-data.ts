/** Reading the blog's taxonomies and the account's members (names for authors' and revisions' "who"). */
import { useQuery } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';

export type BlogPost = Schemas['BlogPost'];
export type BlogTag = Schemas['BlogTag'];
export type BlogAuthor = Schemas['BlogAuthor'];
export type BlogCategory = Schemas['BlogCategory'];

export function useTaxonomies(websiteId: string) {
  const api = useApi();
  const path = { website_id: websiteId };
  const query = { page_size: 100 } as never;
  const tags = useQuery({ queryKey: ['blog_tags', websiteId, 'all'], queryFn: async () => (await data(api.GET('/tenant-api/v1/websites/{website_id}/blog_tags', { params: { path, query } }))).blog_tags });
  const authors = useQuery({ queryKey: ['blog_authors', websiteId, 'all'], queryFn: async () => (await data(api.GET('/tenant-api/v1/websites/{website_id}/blog_authors', { params: { path, query } }))).blog_authors });
  const categories = useQuery({
    queryKey: ['blog_categories', websiteId, 'all'],
    queryFn: async () => (await data(api.GET('/tenant-api/v1/websites/{website_id}/blog_categories', { params: { path, query } }))).blog_categories,
  });
  return {
    tags: tags.data ?? [],
    authors: authors.data ?? [],
    categories: [...(categories.data ?? [])].sort((a, b) => String(a.path ?? '').localeCompare(String(b.path ?? ''))),
    tagOptions: (tags.data ?? []).map((t) => ({ value: t.id, label: t.display_name })),
    authorOptions: (authors.data ?? []).map((a) => ({ value: a.id, label: a.display_name })),
    categoryOptions: [...(categories.data ?? [])]
      .sort((a, b) => String(a.path ?? '').localeCompare(String(b.path ?? '')))
      .map((c) => ({ value: c.id, label: `${'— '.repeat(Number(c.level ?? 0))}${c.display_name}` })),
  };
}

/** `users/{id}` → the member's name (or email), for "who" columns. */
export function useMemberNames() {
  const api = useApi();
  const { entry } = useCurrentWebsite();
  const accountId = entry?.account.id;
  const members = useQuery({
    queryKey: ['members', accountId, 'names'],
    enabled: !!accountId,
    queryFn: async () => (await data(api.GET('/tenant-api/v1/accounts/{account_id}/members', { params: { path: { account_id: accountId! }, query: { page_size: 100 } as never } }))).members,
    staleTime: 60_000,
  });
  return (who: string | undefined): string => {
    if (!who) return 'unknown';
    const m = members.data?.find((x) => x.user === who);
    if (m) return m.display_name || m.email || who;
    if (who.includes('/ai_executions/')) return 'an AI drafting run';
    if (who.includes('/editorial_calendar_entries/')) return 'the editorial calendar';
    return who;
  };
}
