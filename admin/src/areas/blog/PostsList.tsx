/** Blog posts by state (draft, scheduled, published), category, tag and author, with title search; filters in the URL. */
import { useState } from 'react';
import { Badge, Button, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { rest } from '../pages/editor/rest';
import { POST_KIND } from '../pages/editor/kinds';
import { EmptyState, Loading, useCanWrite, useWebsite } from '../pages/editor/common';
import { NewContentModal } from '../pages/ContentList';
import { useTaxonomies, type BlogPost } from './blog-data';
import { postListFilter, type PostListSearch } from './post-list-search';
import { stateColor, stateLabel } from './PostEditor';
import { formatInZone } from './schedule-time';

export function PostsList({ websiteId, search }: { websiteId: string; search: PostListSearch }) {
  usePageTitle('Posts');
  const api = useApi();
  const navigate = useNavigate();
  const canWrite = useCanWrite('website.blog');
  const taxonomies = useTaxonomies(websiteId);
  const website = useWebsite(websiteId);
  const filter = postListFilter(search);
  const order = search.state === 'SCHEDULED' ? 'publish_time asc' : search.state === 'PUBLISHED' ? 'publish_time desc' : 'update_time desc';
  const list = useInfiniteQuery({
    queryKey: ['blog_posts', websiteId, 'list', filter, order],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      rest<{ blog_posts: BlogPost[]; next_page_token?: string; total_size?: number }>(api, 'GET', '/tenant-api/v1/websites/{website_id}/blog_posts', {
        path: { website_id: websiteId },
        query: { page_size: 50, filter, order_by: order, page_token: pageParam },
      }),
    getNextPageParam: (last) => last.next_page_token || undefined,
  });
  const rows = (list.data?.pages ?? []).flatMap((p) => p.blog_posts);
  const total = list.data?.pages[0]?.total_size;
  const setSearch = (next: Partial<PostListSearch>) => void navigate({ to: '.', search: ((prev: PostListSearch) => ({ ...prev, ...next })) as never, replace: true });
  const [q, setQ] = useState(search.q ?? '');
  const searchLater = useDebouncedCallback((v: string) => setSearch({ q: v || undefined }), 300);
  const [creating, setCreating] = useState(false);
  const authorName = (id: string) => taxonomies.authors.find((a) => a.id === id)?.display_name ?? '…';
  const zone = website.data?.time_zone;
  const select = (label: string, key: keyof PostListSearch, options: { value: string; label: string }[], any: string) => (
    <Select
      label={label}
      data={[{ value: '', label: any }, ...options]}
      value={search[key] ?? ''}
      onChange={(v) => setSearch({ [key]: v || undefined })}
      allowDeselect={false}
      searchable={options.length > 8}
      w={200}
    />
  );

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Posts</Title>
        {canWrite && <Button onClick={() => setCreating(true)}>New post</Button>}
      </Group>
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Search titles"
          value={q}
          onChange={(e) => {
            setQ(e.currentTarget.value);
            searchLater(e.currentTarget.value);
          }}
          style={{ flex: '1 1 200px' }}
        />
        {select(
          'State',
          'state',
          [
            { value: 'DRAFT', label: 'Drafts' },
            { value: 'SCHEDULED', label: 'Scheduled' },
            { value: 'PUBLISHED', label: 'Published' },
          ],
          'Every state',
        )}
        {select('Category', 'category', taxonomies.categoryOptions, 'Any category')}
        {select('Tag', 'tag', taxonomies.tagOptions, 'Any tag')}
        {select('Author', 'author', taxonomies.authorOptions, 'Any author')}
      </Group>
      <ApiErrorAlert error={list.error} title="The posts could not be listed" />
      {list.isLoading && <Loading label="Loading posts…" />}
      {list.data && rows.length === 0 && (
        <EmptyState title={filter ? 'No post matches these filters.' : 'No posts yet.'}>
          {filter ? (
            <Button
              variant="default"
              onClick={() => {
                setQ('');
                setSearch({ q: undefined, state: undefined, category: undefined, tag: undefined, author: undefined });
              }}
            >
              Clear the filters
            </Button>
          ) : (
            canWrite && <Button onClick={() => setCreating(true)}>Write the first post</Button>
          )}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <>
          {total !== undefined && <Text size="sm">{total === 1 ? '1 post' : `${total} posts`}</Text>}
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Title</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Authors</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>
                    <AnchorLink to="/w/$websiteId/r/blog_posts/$postId" params={{ websiteId, postId: p.id }}>
                      {p.title || 'Untitled'}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={stateColor(p.state)} variant="filled">
                      {stateLabel(p.state)}
                    </Badge>
                    {p.state !== 'DRAFT' && p.publish_time && (
                      <Text size="xs" mt={2}>
                        {formatInZone(p.publish_time, zone)}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{p.author_ids.map(authorName).join(', ') || '—'}</Table.Td>
                  <Table.Td>{new Date(p.update_time).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {list.hasNextPage && (
            <Button variant="default" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage} style={{ alignSelf: 'center' }}>
              Show more
            </Button>
          )}
        </>
      )}
      <NewContentModal kind={POST_KIND} websiteId={websiteId} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
