/**
 * The editor of a page or a block: title, url_key (follows the title until typed), rich-text body,
 * SEO fields with a search-result preview, visibility per view, active switch; per-view overrides
 * when a view is chosen; a preview of the rendered site; saves with If-Match that never lose text.
 */
import { useEffect, useMemo, useState } from 'react';
import { Anchor, Badge, Box, Button, Grid, Group, MultiSelect, Paper, Select, Stack, Switch, Tabs, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { rest } from './editor/rest';
import type { ContentKind } from './editor/kinds';
import { useContentDoc, type ContentDoc, type Values } from './editor/use-content-doc';
import { DocStatus } from './editor/DocStatus';
import { RichTextEditor } from './editor/RichTextEditor';
import { OverridableField, siteUrl, useOverlayEditing, useViews, ViewSwitcher, viewLabel, type View } from './editor/views';
import { keyFollowsTitle, urlKeyFromTitle, urlKeyProblem } from './editor/url-key';
import { SearchPreview, lengthHint } from './editor/Seo';
import { PreviewPane } from './editor/PreviewPane';
import { ConfirmDelete, Loading, useCanWrite, useWebsite } from './editor/common';
import { PageGroups } from './PageGroups';

const PAGE_FIELDS = ['title', 'url_key', 'content_heading', 'content', 'meta_title', 'meta_description', 'meta_keywords', 'meta_robots', 'visible_view_ids', 'is_active'];
const BLOCK_FIELDS = ['title', 'identifier', 'content', 'visible_view_ids', 'is_active'];

export interface EditorSearch {
  view?: string;
  tab?: string;
}

export function ContentEditor({ kind, websiteId, id, search }: { kind: ContentKind; websiteId: string; id: string; search: EditorSearch }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const isPage = kind.collection === 'cms_pages';
  const fields = isPage ? PAGE_FIELDS : BLOCK_FIELDS;
  const canWrite = useCanWrite(kind.section);
  const path = { website_id: websiteId, [kind.idParam]: id };
  const item = useQuery({ queryKey: [kind.collection, websiteId, id], queryFn: () => rest<Values & { etag: string }>(api, 'GET', kind.item, { path }) });
  const views = useViews(websiteId);
  const website = useWebsite(websiteId);
  const view: View | undefined = views.data?.find((v) => v.id === search.view);
  const [savedVersion, setSavedVersion] = useState(0);

  const onSaved = () => {
    setSavedVersion((n) => n + 1);
    void queryClient.invalidateQueries({ queryKey: [kind.collection, websiteId] });
  };
  const baseDoc = useContentDoc({
    key: `${kind.collection}/${id}`,
    fields,
    loaded: useMemo(() => (item.data ? { etag: item.data.etag, values: item.data } : undefined), [item.data]),
    write: async (changes, etag) => {
      const saved = await rest<Values & { etag: string }>(api, 'PATCH', kind.item, { path, body: changes, ifMatch: etag });
      return { etag: saved.etag, values: saved };
    },
    onSaved,
  });
  const overlay = useOverlayEditing({ kind, websiteId, id, view, views: views.data ?? [], item: baseDoc.base?.values });
  const inView = !!view;
  const doc = inView ? overlay.doc : baseDoc;
  // The overlay doc reports saves too.
  useEffect(() => {
    if (inView && overlay.doc.base?.etag) onSaved();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overlay.doc.base?.etag]);

  const title = String(baseDoc.values.title ?? '');
  usePageTitle(item.data ? `${title || 'Untitled'} · ${kind.noun === 'page' ? 'Pages' : 'Blocks'}` : kind.noun === 'page' ? 'Page' : 'Block');

  // Ctrl/Cmd+S saves.
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

  if (item.isLoading) return <Loading label={`Loading the ${kind.noun}…`} />;
  if (item.error || !item.data)
    return (
      <Stack>
        <Title order={1}>{kind.noun === 'page' ? 'Page' : 'Block'}</Title>
        <ApiErrorAlert error={item.error} title={`The ${kind.noun} could not be read`} />
      </Stack>
    );

  const setSearch = (next: EditorSearch) =>
    void navigate({ to: '.', search: ((prev: EditorSearch) => ({ ...prev, ...next })) as never, replace: true });
  const errors = fieldErrorsOf(doc.error);
  const urlKey = String(baseDoc.values.url_key ?? '');
  // The home page keeps its key whatever its title says.
  const isHome = baseDoc.base?.values.url_key === 'home';
  const previewView = view ?? views.data?.find((v) => v.is_default);
  const livePath = urlKey === 'home' ? '' : urlKey;
  const liveUrl = isPage && item.data.is_active ? siteUrl(website.data?.website_url, previewView, livePath) : undefined;
  const labels = kind.labels;

  const text = (field: string, props: { label?: string; description?: string; multiline?: boolean; readOnly?: boolean } = {}) => {
    const control = (value: unknown, onChange: (v: unknown) => void) =>
      props.multiline ? (
        <Textarea
          label={props.label ?? labels[field]}
          description={props.description}
          value={String(value ?? '')}
          onChange={(e) => onChange(e.currentTarget.value)}
          error={errors[field]}
          readOnly={!canWrite || props.readOnly}
          autosize
          minRows={2}
        />
      ) : (
        <TextInput
          label={props.label ?? labels[field]}
          description={props.description}
          value={String(value ?? '')}
          onChange={(e) => onChange(e.currentTarget.value)}
          error={errors[field]}
          readOnly={!canWrite || props.readOnly}
        />
      );
    return overridable(field, control);
  };
  const overridable = (field: string, control: (value: unknown, onChange: (v: unknown) => void) => React.ReactNode) =>
    inView && kind.overridable.includes(field) ? (
      <OverridableField key={field} field={field} label={labels[field] ?? field} doc={doc} inherited={overlay.inherited} sourceOf={overlay.sourceOf} readOnly={!canWrite}>
        {control}
      </OverridableField>
    ) : inView ? null : (
      <Box key={field}>{control(doc.values[field], (v) => doc.set(field, v))}</Box>
    );

  const contentOverridden = ((doc.values.overridden as string[] | undefined) ?? []).includes('content');
  const contentEditor = overridable('content', (value, onChange) => (
    <Stack gap={4}>
      <Text size="sm" fw={500} component="div" id="content-label">
        {labels.content}
      </Text>
      <RichTextEditor
        label={labels.content}
        value={String(value ?? '')}
        onChange={onChange}
        resetKey={`${doc.resetKey}:${inView ? view?.id : ''}:${contentOverridden}`}
        readOnly={!canWrite}
        websiteId={websiteId}
      />
      {errors.content && (
        <Text size="sm" c="red.9">
          {errors.content}
        </Text>
      )}
    </Stack>
  ));

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <AnchorLink to="/w/$websiteId/r/$" params={{ websiteId, _splat: kind.collection }} size="sm">
            ← {kind.noun === 'page' ? 'Pages' : 'Blocks'}
          </AnchorLink>
          <Title order={1}>{title || 'Untitled'}</Title>
          <Group gap="xs">
            <Badge color={item.data.is_active ? '#1e6b34' : 'gray.7'} variant="filled">
              {item.data.is_active ? 'Active' : 'Inactive'}
            </Badge>
            {inView && <Badge variant="filled" color="violet.9">Editing {view!.display_name} only</Badge>}
            {doc.dirty && <Badge variant="outline" color="#8a3c00">Unsaved changes</Badge>}
          </Group>
        </Stack>
        <Group>
          {liveUrl && (
            <Anchor href={liveUrl} target="_blank" rel="noreferrer">
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
          {isPage && <Tabs.Tab value="preview">Preview</Tabs.Tab>}
          {isPage && <Tabs.Tab value="groups">Customer-group versions</Tabs.Tab>}
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
                      value={String(value ?? '')}
                      size="md"
                      error={errors.title}
                      readOnly={!canWrite}
                      onChange={(e) => {
                        const next = e.currentTarget.value;
                        onChange(next);
                        // The URL key follows the title until the person types one.
                        if (!inView && isPage && keyFollowsTitle(urlKey, title)) {
                          const derived = urlKeyFromTitle(next);
                          if (derived && !isHome) doc.set('url_key', derived);
                        }
                      }}
                    />
                  ))}
                  {isPage && text('content_heading', { description: 'Shown above the content.' })}
                  {contentEditor}
                </Stack>
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 4 }}>
                <Stack>
                  {!inView && isPage && <UrlKeyField doc={doc} title={title} isHome={isHome} error={errors.url_key} readOnly={!canWrite} url={siteUrl(website.data?.website_url, previewView, livePath)} />}
                  {!inView && !isPage && text('identifier', { description: 'Place the block with <div data-block="identifier">; changing it breaks existing placements.' })}
                  {!inView && (
                    <Paper withBorder p="sm">
                      <Stack gap="sm">
                        <Switch label="Active (the site shows it)" checked={!!doc.values.is_active} onChange={(e) => doc.set('is_active', e.currentTarget.checked)} disabled={!canWrite} />
                        <MultiSelect
                          label={labels.visible_view_ids}
                          description="None chosen: every view, present and future."
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
                  {inView && (
                    <Text size="sm">
                      The URL key, visibility and the active switch are the same in every view: edit them under “Every view”.
                    </Text>
                  )}
                  {isPage && (
                    <Paper withBorder p="sm">
                      <Stack gap="sm">
                        <Title order={2} size="h4">
                          Search and social
                        </Title>
                        <SearchPreview
                          title={String((inView ? valueIn(doc, overlay.inherited, 'meta_title') : doc.values.meta_title) || (inView ? valueIn(doc, overlay.inherited, 'title') : title) || '')}
                          url={siteUrl(website.data?.website_url, previewView, livePath)}
                          description={String((inView ? valueIn(doc, overlay.inherited, 'meta_description') : doc.values.meta_description) ?? '')}
                        />
                        {text('meta_title', { description: lengthHint(inView ? valueIn(doc, overlay.inherited, 'meta_title') : doc.values.meta_title, 60) })}
                        {text('meta_description', { multiline: true, description: lengthHint(inView ? valueIn(doc, overlay.inherited, 'meta_description') : doc.values.meta_description, 160) })}
                        {text('meta_keywords', { description: 'Comma-separated.' })}
                        {!inView && (
                          <Select
                            label={labels.meta_robots}
                            data={[
                              { value: 'INDEX_FOLLOW', label: 'Index and follow links' },
                              { value: 'NOINDEX_FOLLOW', label: 'Do not index, follow links' },
                              { value: 'INDEX_NOFOLLOW', label: 'Index, do not follow links' },
                              { value: 'NOINDEX_NOFOLLOW', label: 'Neither' },
                            ]}
                            value={String(doc.values.meta_robots ?? 'INDEX_FOLLOW')}
                            onChange={(v) => v && doc.set('meta_robots', v)}
                            readOnly={!canWrite}
                            allowDeselect={false}
                          />
                        )}
                      </Stack>
                    </Paper>
                  )}
                  {!inView && canWrite && (
                    <Group>
                      <ConfirmDelete
                        what={`this ${kind.noun}`}
                        onConfirm={async () => {
                          await rest(api, 'DELETE', kind.item, { path, ifMatch: baseDoc.base?.etag });
                          await queryClient.invalidateQueries({ queryKey: [kind.collection, websiteId] });
                          void navigate({ to: '/w/$websiteId/r/$', params: { websiteId, _splat: kind.collection } });
                        }}
                      />
                    </Group>
                  )}
                </Stack>
              </Grid.Col>
            </Grid>
          )}
        </Tabs.Panel>
        {isPage && (
          <Tabs.Panel value="preview" pt="md">
            <PreviewPane
              url={siteUrl(website.data?.website_url, previewView, livePath)}
              version={`${savedVersion}:${previewView?.id}`}
              label={`Preview of ${title || 'the page'}${previewView ? ` in ${previewView.display_name}` : ''}`}
            />
            {!item.data.is_active && <Text mt="xs">The page is inactive: the site answers “not found” until it is switched on.</Text>}
          </Tabs.Panel>
        )}
        {isPage && (
          <Tabs.Panel value="groups" pt="md">
            <PageGroups websiteId={websiteId} pageId={id} canWrite={canWrite} />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}

const valueIn = (doc: ContentDoc, inherited: Values | undefined, field: string) =>
  ((doc.values.overridden as string[] | undefined) ?? []).includes(field) ? doc.values[field] : inherited?.[field];

function UrlKeyField({ doc, title, isHome, error, readOnly, url }: { doc: ContentDoc; title: string; isHome: boolean; error?: string; readOnly: boolean; url: string | undefined }) {
  const key = String(doc.values.url_key ?? '');
  const follows = keyFollowsTitle(key, title);
  const problem = urlKeyProblem(key);
  return (
    <Stack gap={4}>
      <TextInput
        label="URL key"
        description={url ? `Address: ${url}` : 'The page’s address below the view’s prefix.'}
        value={key}
        onChange={(e) => doc.set('url_key', e.currentTarget.value)}
        error={error ?? problem}
        readOnly={readOnly}
      />
      {!readOnly && !follows && urlKeyFromTitle(title) && !isHome && (
        <Button size="compact-xs" variant="subtle" onClick={() => doc.set('url_key', urlKeyFromTitle(title))} style={{ alignSelf: 'flex-start' }}>
          Derive from the title ({urlKeyFromTitle(title)})
        </Button>
      )}
    </Stack>
  );
}
