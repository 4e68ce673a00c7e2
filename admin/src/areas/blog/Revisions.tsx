/**
 * A post's revisions (the newest 50 the API keeps): who wrote each and when, a readable diff
 * between any two (or a revision and the post as it is now), and restore.
 */
import { useState } from 'react';
import { Alert, Button, Group, Radio, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { rest } from '../pages/editor/rest';
import { DiffView } from '../pages/editor/DiffView';
import { changedFields } from '../pages/editor/diff-view';
import { POST_KIND } from '../pages/editor/kinds';
import type { ContentDoc } from '../pages/editor/use-content-doc';
import { EmptyState, Loading } from '../pages/editor/common';
import type { BlogPost } from './blog-data';
import { useMemberNames } from './blog-data';

type Revision = Schemas['BlogPostRevision'];
const DIFF_FIELDS = ['title', 'url_key', 'custom_excerpt', 'content', 'feature_image_alt', 'meta_title', 'meta_description', 'og_title', 'og_description', 'canonical_url', 'author_ids', 'category_ids', 'tag_ids'];
const CURRENT = 'current';

export function Revisions({ websiteId, post, doc, canWrite, onRestored }: { websiteId: string; post: BlogPost; doc: ContentDoc; canWrite: boolean; onRestored(post: BlogPost): void }) {
  const api = useApi();
  const who = useMemberNames();
  const path = { website_id: websiteId, blog_post_id: post.id };
  const revisions = useQuery({
    queryKey: ['blog_posts', websiteId, post.id, 'revisions', post.etag],
    queryFn: () => rest<{ revisions?: Revision[] }>(api, 'GET', '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}/revisions', { path, query: { page_size: 50 } }),
  });
  const list = revisions.data?.revisions ?? [];
  const [from, setFrom] = useState<string>();
  const [to, setTo] = useState<string>(CURRENT);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const snapshot = (id: string | undefined): Record<string, unknown> | undefined =>
    id === CURRENT ? (post as unknown as Record<string, unknown>) : list.find((r) => r.id === id)?.snapshot;
  const fromId = from ?? list[1]?.id ?? list[0]?.id;
  const a = snapshot(fromId);
  const b = snapshot(to);
  const fields = a && b ? changedFields(a, b, DIFF_FIELDS, POST_KIND.richText) : [];
  const label = (id: string | undefined) => {
    if (id === CURRENT) return 'the post now';
    const r = list.find((x) => x.id === id);
    return r ? `revision ${r.post_revision ?? ''} (${new Date(r.create_time).toLocaleString()})` : '';
  };
  const restore = async (revision: Revision) => {
    setBusy(true);
    setError(undefined);
    try {
      const restored = await rest<BlogPost>(api, 'POST', '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}/revisions/{revision_id}:restore', {
        path: { ...path, revision_id: revision.id },
        body: { etag: doc.base?.etag ?? post.etag },
      });
      onRestored(restored);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (revisions.isLoading) return <Loading label="Loading revisions…" />;
  return (
    <Stack>
      <ApiErrorAlert error={revisions.error} title="The revisions could not be read" />
      <ApiErrorAlert error={error} title="Not restored" />
      {revisions.data && list.length === 0 && <EmptyState title="No revisions yet: each save that changes the text keeps one." />}
      {doc.dirty && (
        <Alert color="orange" title="Unsaved changes">
          Save or discard your changes before restoring a revision.
        </Alert>
      )}
      {list.length > 0 && (
        <Table striped>
          <Table.Caption>Compare: choose “from” and “to”; the differences show below.</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Revision</Table.Th>
              <Table.Th>Written by</Table.Th>
              <Table.Th>When</Table.Th>
              <Table.Th>Title</Table.Th>
              <Table.Th>From</Table.Th>
              <Table.Th>To</Table.Th>
              <Table.Th>Restore</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>Now</Table.Td>
              <Table.Td colSpan={2}>The post as it is</Table.Td>
              <Table.Td>{post.title}</Table.Td>
              <Table.Td />
              <Table.Td>
                <Radio name="to" value={CURRENT} checked={to === CURRENT} onChange={() => setTo(CURRENT)} aria-label="Compare to the post now" />
              </Table.Td>
              <Table.Td />
            </Table.Tr>
            {list.map((r, i) => (
              <Table.Tr key={r.id}>
                <Table.Td>{r.post_revision ?? list.length - i}</Table.Td>
                <Table.Td>{who(r.created_by)}</Table.Td>
                <Table.Td>{new Date(r.create_time).toLocaleString()}</Table.Td>
                <Table.Td>{String(r.snapshot?.title ?? '')}</Table.Td>
                <Table.Td>
                  <Radio name="from" value={r.id} checked={fromId === r.id} onChange={() => setFrom(r.id)} aria-label={`Compare from revision ${r.post_revision ?? ''}`} />
                </Table.Td>
                <Table.Td>
                  <Radio name="to" value={r.id} checked={to === r.id} onChange={() => setTo(r.id)} aria-label={`Compare to revision ${r.post_revision ?? ''}`} />
                </Table.Td>
                <Table.Td>
                  {canWrite && (
                    <Button size="compact-sm" variant="default" disabled={doc.dirty} loading={busy} onClick={() => void restore(r)} aria-label={`Restore revision ${r.post_revision ?? ''}`}>
                      Restore
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {a && b && (
        <Stack gap="sm">
          <Title order={2} size="h4">
            From {label(fromId)} to {label(to)}
          </Title>
          {fields.length === 0 && <Text>No differences in the text.</Text>}
          {fields.map((f) => (
            <DiffView key={f} label={POST_KIND.labels[f] ?? f} before={a[f]} after={b[f]} richText={POST_KIND.richText.includes(f)} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
