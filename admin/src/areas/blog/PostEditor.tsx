/**
 * The post editor: the page editor's title, url_key, rich-text body, SEO and per-view overrides,
 * plus feature image with alt text, excerpt, authors, categories, tags, social fields, and the
 * publishing panel (publish now, schedule in the website's time zone, unpublish), revisions with
 * a readable diff and restore, and a preview of the post on the site.
 */
import { useEffect, useMemo, useState } from 'react';
import { Anchor, Badge, Box, Button, Grid, Group, MultiSelect, Paper, Stack, Tabs, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { rest } from '../pages/editor/rest';
import { POST_KIND } from '../pages/editor/kinds';
import { useContentDoc, type ContentDoc, type Values } from '../pages/editor/use-content-doc';
import { DocStatus } from '../pages/editor/DocStatus';
import { RichTextEditor } from '../pages/editor/RichTextEditor';
import { OverridableField, siteUrl, useOverlayEditing, useViews, ViewSwitcher, viewLabel, type View } from '../pages/editor/views';
import { keyFollowsTitle, urlKeyFromTitle, urlKeyProblem } from '../pages/editor/url-key';
import { SearchPreview, lengthHint } from '../pages/editor/Seo';
import { PreviewPane } from '../pages/editor/PreviewPane';
import { ConfirmDelete, Loading, useCanWrite, useWebsite } from '../pages/editor/common';
import { MediaField } from '../media/ImagePicker';
import { useTaxonomies, type BlogPost } from './blog-data';
import { PublishPanel } from './PublishPanel';
import { Revisions } from './Revisions';

const POST_FIELDS = [
  'title',
  'url_key',
  'custom_excerpt',
  'content',
  'feature_image_media_id',
  'feature_image_alt',
  'meta_title',
  'meta_description',
  'og_title',
  'og_description',
  'og_image_media_id',
  'canonical_url',
  'author_ids',
  'category_ids',
  'tag_ids',
  'visible_view_ids',
];

export interface PostSearch {
  view?: string;
  tab?: string;
}

export const stateColor = (state: string | undefined) => (state === 'PUBLISHED' ? '#1e6b34' : state === 'SCHEDULED' ? 'blue.9' : 'gray.7');
export const stateLabel = (state: string | undefined) => (state === 'PUBLISHED' ? 'Published' : state === 'SCHEDULED' ? 'Scheduled' : 'Draft');

export function PostEditor({ websiteId, id, search }: { websiteId: string; id: string; search: PostSearch }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const kind = POST_KIND;
  const canWrite = useCanWrite(kind.section);
  const path = { website_id: websiteId, blog_post_id: id };
  const item = useQuery({ queryKey: ['blog_posts', websiteId, id], queryFn: () => rest<BlogPost>(api, 'GET', kind.item, { path }) });
  const views = useViews(websiteId);
  const website = useWebsite(websiteId);
  const taxonomies = useTaxonomies(websiteId);
  const view: View | undefined = views.data?.find((v) => v.id === search.view);
  const [savedVersion, setSavedVersion] = useState(0);
  const onSaved = () => {
    setSavedVersion((n) => n + 1);
    void queryClient.invalidateQueries({ queryKey: ['blog_posts', websiteId] });
  };
  const baseDoc = useContentDoc({
    key: `blog_posts/${id}`,
    fields: POST_FIELDS,
    loaded: useMemo(() => (item.data ? { etag: item.data.etag, values: item.data as unknown as Values } : undefined), [item.data]),
    write: async (changes, etag) => {
      const saved = await rest<BlogPost>(api, 'PATCH', kind.item, { path, body: changes, ifMatch: etag });
      return { etag: saved.etag, values: saved as unknown as Values };
    },
    onSaved,
  });
  const overlay = useOverlayEditing({ kind, websiteId, id, view, views: views.data ?? [], item: baseDoc.base?.values });
  const inView = !!view;
  const doc = inView ? overlay.doc : baseDoc;
  useEffect(() => {
    if (inView && overlay.doc.base?.etag) onSaved();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overlay.doc.base?.etag]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (doc.dirty && !doc.saving) void doc.save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doc]);

  const title = String(baseDoc.values.title ?? '');
  usePageTitle(item.data ? `${title || 'Untitled'} · Posts` : 'Post');
  if (item.isLoading) return <Loading label="Loading the post…" />;
  if (item.error || !item.data)
    return (
      <Stack>
        <Title order={1}>Post</Title>
        <ApiErrorAlert error={item.error} title="The post could not be read" />
      </Stack>
    );

  // The post as the publishing calls left it (state, publish_time, etag).
  const post = { ...item.data, ...(baseDoc.base?.values as Partial<BlogPost>), etag: baseDoc.base?.etag ?? item.data.etag } as BlogPost;
  const setSearch = (next: PostSearch) => void navigate({ to: '.', search: ((prev: PostSearch) => ({ ...prev, ...next })) as never, replace: true });
  const errors = fieldErrorsOf(doc.error);
  const labels = kind.labels;
  const urlKey = String(baseDoc.values.url_key ?? '');
  const previewView = view ?? views.data?.find((v) => v.is_default);
  const postUrl = siteUrl(website.data?.website_url, previewView, `blog/${urlKey}`);
  const live = post.state === 'PUBLISHED';
  const valueOf = (f: string) => (inView ? (((doc.values.overridden as string[]) ?? []).includes(f) ? doc.values[f] : overlay.inherited?.[f]) : doc.values[f]);

  const overridable = (field: string, control: (value: unknown, onChange: (v: unknown) => void) => React.ReactNode) =>
    inView && kind.overridable.includes(field) ? (
      <OverridableField key={field} field={field} label={labels[field] ?? field} doc={doc} inherited={overlay.inherited} sourceOf={overlay.sourceOf} readOnly={!canWrite}>
        {control}
      </OverridableField>
    ) : inView ? null : (
      <Box key={field}>{control(doc.values[field], (v) => doc.set(field, v))}</Box>
    );
  const text = (field: string, opts: { description?: string; multiline?: boolean } = {}) =>
    overridable(field, (value, onChange) =>
      opts.multiline ? (
        <Textarea label={labels[field]} description={opts.description} value={String(value ?? '')} onChange={(e) => onChange(e.currentTarget.value)} error={errors[field]} readOnly={!canWrite} autosize minRows={2} />
      ) : (
        <TextInput label={labels[field]} description={opts.description} value={String(value ?? '')} onChange={(e) => onChange(e.currentTarget.value)} error={errors[field]} readOnly={!canWrite} />
      ),
    );
  const contentOverridden = ((doc.values.overridden as string[] | undefined) ?? []).includes('content');
  const ids = (field: string, options: { value: string; label: string }[], placeholder: string) =>
    !inView && (
      <MultiSelect
        label={labels[field]}
        data={options}
        value={(doc.values[field] as string[] | undefined) ?? []}
        onChange={(v) => doc.set(field, v)}
        error={errors[field]}
        readOnly={!canWrite}
        searchable
        placeholder={placeholder}
        nothingFoundMessage="Nothing matches"
      />
    );

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <AnchorLink to="/w/$websiteId/r/$" params={{ websiteId, _splat: 'blog_posts' }} size="sm">
            ← Posts
          </AnchorLink>
          <Title order={1}>{title || 'Untitled'}</Title>
          <Group gap="xs">
            <Badge color={stateColor(post.state)} variant="filled">
              {stateLabel(post.state)}
            </Badge>
            {inView && (
              <Badge variant="filled" color="violet.9">
                Editing {view!.display_name} only
              </Badge>
            )}
            {doc.dirty && (
              <Badge variant="outline" color="#8a3c00">
                Unsaved changes
              </Badge>
            )}
          </Group>
        </Stack>
        <Group>
          {live && postUrl && (
            <Anchor href={postUrl} target="_blank" rel="noreferrer">
              View on site
            </Anchor>
          )}
          {canWrite && (
            <Button onClick={() => void doc.save()} loading={doc.saving} disabled={!doc.dirty || !!doc.conflict}>
              Save
            </Button>
          )}
        </Group>
      </Group>
      <DocStatus doc={doc} labels={labels} richText={kind.richText} />
      {inView && <ApiErrorAlert error={overlay.error} title="This view's overrides could not be read" />}

      <Tabs value={search.tab ?? 'edit'} onChange={(t) => setSearch({ tab: t === 'edit' ? undefined : (t ?? undefined) })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="edit">Edit</Tabs.Tab>
          <Tabs.Tab value="preview">Preview</Tabs.Tab>
          <Tabs.Tab value="revisions">Revisions</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="edit" pt="md">
          {inView && overlay.loading ? (
            <Loading label="Loading this view's overrides…" />
          ) : (
            <Grid gap="lg">
              <Grid.Col span={{ base: 12, lg: 8 }}>
                <Stack>
                  {views.data && views.data.length > 1 && <ViewSwitcher views={views.data} value={view?.id} onChange={(v) => setSearch({ view: v })} />}
                  {overridable('title', (value, onChange) => (
                    <TextInput
                      label={labels.title}
                      size="md"
                      value={String(value ?? '')}
                      error={errors.title}
                      readOnly={!canWrite}
                      onChange={(e) => {
                        const next = e.currentTarget.value;
                        onChange(next);
                        if (!inView && keyFollowsTitle(urlKey, title) && post.state !== 'PUBLISHED') {
                          const derived = urlKeyFromTitle(next);
                          if (derived) doc.set('url_key', derived);
                        }
                      }}
                    />
                  ))}
                  {overridable('custom_excerpt', (value, onChange) => (
                    <Textarea
                      label={labels.custom_excerpt}
                      description="Shown in lists and feeds; empty: the start of the content."
                      value={String(value ?? '')}
                      onChange={(e) => onChange(e.currentTarget.value)}
                      error={errors.custom_excerpt}
                      readOnly={!canWrite}
                      autosize
                      minRows={2}
                    />
                  ))}
                  {overridable('content', (value, onChange) => (
                    <Stack gap={4}>
                      <Text size="sm" fw={500} component="div">
                        {labels.content}
                      </Text>
                      <RichTextEditor
                        label={labels.content}
                        value={String(value ?? '')}
                        onChange={onChange}
                        resetKey={`${doc.resetKey}:${view?.id ?? ''}:${contentOverridden}`}
                        readOnly={!canWrite}
                        websiteId={websiteId}
                      />
                      {errors.content && (
                        <Text size="sm" c="red.9">
                          {errors.content}
                        </Text>
                      )}
                    </Stack>
                  ))}
                </Stack>
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 4 }}>
                <Stack>
                  {!inView && (
                    <PublishPanel
                      websiteId={websiteId}
                      post={post}
                      doc={baseDoc}
                      canWrite={canWrite}
                      timeZone={website.data?.time_zone}
                      onChanged={(p) => {
                        baseDoc.adopt({ etag: p.etag, values: p as unknown as Values });
                        queryClient.setQueryData(['blog_posts', websiteId, id], p);
                        onSaved();
                      }}
                    />
                  )}
                  {!inView && (
                    <Paper withBorder p="sm">
                      <Stack gap="sm">
                        <MediaField websiteId={websiteId} label="Feature image" value={doc.values.feature_image_media_id as string | undefined} onChange={(mid, media) => {
                          doc.set('feature_image_media_id', mid);
                          if (media?.alt_text && !doc.values.feature_image_alt) doc.set('feature_image_alt', media.alt_text);
                        }} readOnly={!canWrite} />
                        {(!!doc.values.feature_image_media_id || !!doc.values.feature_image_alt) && text('feature_image_alt', { description: 'What the feature image shows.' })}
                      </Stack>
                    </Paper>
                  )}
                  {inView && text('feature_image_alt', { description: 'What the feature image shows.' })}
                  {!inView && (
                    <Paper withBorder p="sm">
                      <Stack gap="sm">
                        <PostUrlKey doc={doc} title={title} error={errors.url_key} readOnly={!canWrite} url={postUrl} />
                        {ids('author_ids', taxonomies.authorOptions, 'Choose authors')}
                        {ids('category_ids', taxonomies.categoryOptions, 'Choose categories')}
                        {ids('tag_ids', taxonomies.tagOptions, 'Choose tags')}
                        <MultiSelect
                          label={labels.visible_view_ids}
                          description="None chosen: every view."
                          data={(views.data ?? []).map((v) => ({ value: v.id, label: viewLabel(v) }))}
                          value={(doc.values.visible_view_ids as string[] | undefined) ?? []}
                          onChange={(v) => doc.set('visible_view_ids', v)}
                          error={errors.visible_view_ids}
                          readOnly={!canWrite}
                          placeholder="Every view"
                        />
                      </Stack>
                    </Paper>
                  )}
                  {inView && <Text size="sm">Publishing, the URL key, authors, categories, tags and images are the same in every view: edit them under “Every view”.</Text>}
                  <Paper withBorder p="sm">
                    <Stack gap="sm">
                      <Title order={2} size="h4">
                        Search and social
                      </Title>
                      <SearchPreview
                        title={String(valueOf('meta_title') || valueOf('title') || '')}
                        url={postUrl}
                        description={String(valueOf('meta_description') || post.excerpt || '')}
                      />
                      {text('meta_title', { description: lengthHint(valueOf('meta_title'), 60) })}
                      {text('meta_description', { multiline: true, description: lengthHint(valueOf('meta_description'), 160) })}
                      {text('og_title', { description: 'Shown when the post is shared; empty: the meta title.' })}
                      {text('og_description', { multiline: true, description: 'Empty: the meta description.' })}
                      {!inView && (
                        <MediaField websiteId={websiteId} label="Social image" value={doc.values.og_image_media_id as string | undefined} onChange={(mid) => doc.set('og_image_media_id', mid)} readOnly={!canWrite} />
                      )}
                      {!inView && text('canonical_url', { description: 'Only when the post first appeared elsewhere.' })}
                    </Stack>
                  </Paper>
                  {!inView && canWrite && (
                    <Group>
                      <ConfirmDelete
                        what="this post"
                        onConfirm={async () => {
                          await rest(api, 'DELETE', kind.item, { path, ifMatch: baseDoc.base?.etag });
                          await queryClient.invalidateQueries({ queryKey: ['blog_posts', websiteId] });
                          void navigate({ to: '/w/$websiteId/r/$', params: { websiteId, _splat: 'blog_posts' } });
                        }}
                      />
                    </Group>
                  )}
                </Stack>
              </Grid.Col>
            </Grid>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="preview" pt="md">
          <PreviewPane url={postUrl} version={`${savedVersion}:${previewView?.id}`} label={`Preview of ${title || 'the post'}`} />
          {!live && <Text mt="xs">The post is not published: the site answers “not found” until it goes live.</Text>}
        </Tabs.Panel>
        <Tabs.Panel value="revisions" pt="md">
          <Revisions websiteId={websiteId} post={post} doc={baseDoc} canWrite={canWrite} onRestored={(p) => {
            baseDoc.replace({ etag: p.etag, values: p as unknown as Values });
            queryClient.setQueryData(['blog_posts', websiteId, id], p);
            onSaved();
          }} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function PostUrlKey({ doc, title, error, readOnly, url }: { doc: ContentDoc; title: string; error?: string; readOnly: boolean; url: string | undefined }) {
  const key = String(doc.values.url_key ?? '');
  const problem = urlKeyProblem(key) ?? (key.includes('/') ? 'A post’s URL key is one segment (no “/”).' : undefined);
  return (
    <Stack gap={4}>
      <TextInput label="URL key" description={url ? `Address: ${url}` : undefined} value={key} onChange={(e) => doc.set('url_key', e.currentTarget.value)} error={error ?? problem} readOnly={readOnly} />
      {!readOnly && !keyFollowsTitle(key, title) && urlKeyFromTitle(title) && (
        <Button size="compact-xs" variant="subtle" onClick={() => doc.set('url_key', urlKeyFromTitle(title))} style={{ alignSelf: 'flex-start' }}>
          Derive from the title ({urlKeyFromTitle(title)})
        </Button>
      )}
    </Stack>
  );
}
