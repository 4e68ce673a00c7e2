// The admin's generated screens are drawn from the committed tenant OpenAPI: these tests walk the
// document and hold the model (and the admin's route table) to every List and custom method in it.
// Pure logic, no database: it runs in both vitest projects unchanged.
import { describe, expect, it } from 'vitest';
import doc from '../../docs/openapi/tenant-api.json' with { type: 'json' };
import { buildApiModel, API_PREFIX } from '../../admin/src/lib/openapi-model/model.js';
import { parseListDeclaration } from '../../admin/src/lib/openapi-model/declarations.js';
import type { OpenApiDocument } from '../../admin/src/lib/openapi-model/types.js';
import { DEDICATED_SCREENS, resolveScreen, screenHref, screenPath, placement, type Context } from '../../admin/src/generic/placement.js';

const document = doc as unknown as OpenApiDocument;
const model = buildApiModel(document);
const contextFor = (kind: 'website' | 'account'): Context => (kind === 'website' ? { kind, websiteId: 'w1' } : { kind, accountId: 'a1' });
/** Made-up values for a resource's path params. */
const fakeParams = (names: string[]) => Object.fromEntries(names.map((n) => [n, `x-${n}`]));

const allOperations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, operationId: op!.operationId!, description: op!.description ?? '' })),
);

describe('the admin reaches every List and custom method of the tenant API', () => {
  it('gives every List a screen whose link leads back to it', () => {
    const lists = allOperations.filter((o) => o.method === 'get' && o.operationId.startsWith('List'));
    expect(lists.length).toBeGreaterThan(40);
    for (const list of lists) {
      const resource = model.resources.find((r) => r.list?.operationId === list.operationId);
      expect(resource, `${list.operationId} has no collection in the model`).toBeDefined();
      const { context } = placement(resource!);
      const params = fakeParams(resource!.parentParams);
      const ctx = contextFor(context);
      const href = screenHref(ctx, resource!, params);
      const splat = href.slice(href.indexOf('/g/') + 3);
      expect(resolveScreen(model, ctx, splat)?.resource.key, `${list.operationId}: ${href}`).toBe(resource!.key);
    }
  });

  it('gives every custom method a screen, or names the dedicated screen that offers it', () => {
    const verbs = allOperations.filter((o) => o.path.slice(o.path.lastIndexOf('/')).includes(':'));
    expect(verbs.length).toBeGreaterThan(40);
    for (const verb of verbs) {
      if (DEDICATED_SCREENS[verb.operationId]) continue;
      const owner = model.resources.find((r) => r.verbs.some((v) => v.endpoint.operationId === verb.operationId));
      expect(owner, `${verb.operationId} (${verb.path}) has no place in the admin`).toBeDefined();
      const v = owner!.verbs.find((x) => x.endpoint.operationId === verb.operationId)!;
      const { context } = placement(owner!);
      const ctx = contextFor(context);
      const params = fakeParams(owner!.parentParams);
      const onItem = v.on === 'resource' && owner!.kind === 'collection';
      const href = screenHref(ctx, owner!, params, { ...(onItem && { itemId: 'item1' }), action: v.name });
      const screen = resolveScreen(model, ctx, href.slice(href.indexOf('/g/') + 3));
      expect(screen?.resource.key, `${verb.operationId}: ${href}`).toBe(owner!.key);
      expect(screen?.action).toBe(v.name);
    }
  });

  it('gives every Get, Create, Update and Delete a place on a generated or dedicated screen', () => {
    const placed = new Set<string>(Object.keys(DEDICATED_SCREENS));
    for (const r of model.resources) {
      for (const e of [r.list, r.get, r.create, r.update, r.delete, ...r.verbs.map((v) => v.endpoint)]) if (e) placed.add(e.operationId);
    }
    const missing = allOperations.filter((o) => !placed.has(o.operationId)).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(missing).toEqual([]);
  });

  it('names no dedicated screen for an operation the API does not have', () => {
    const ids = new Set(allOperations.map((o) => o.operationId));
    expect(Object.keys(DEDICATED_SCREENS).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('reads the declared filters, orders and default order of every List that states them', () => {
    // The resource engine states them on every List it serves; a hand-written List may have none.
    for (const r of model.resources.filter((x) => x.list?.description.includes('Sortable: '))) {
      expect(r.declaration, `${r.key}: declaration not read`).toBeDefined();
      const [field] = r.declaration!.defaultOrder.split(' ');
      expect(r.declaration!.sortable, r.key).toContain(field);
    }
    expect(model.byKey.get('websites/{website_id}/blog_posts')!.declaration).toEqual({
      sortable: ['publish_time', 'create_time', 'update_time', 'title'],
      filterable: ['create_time', 'update_time', 'title', 'url_key', 'state', 'publish_time', 'category_ids', 'tag_ids', 'author_ids'],
      defaultOrder: 'create_time desc',
    });
  });

  it('reads a List description without the declaration sentence as undeclared', () => {
    expect(parseListDeclaration('Just prose.')).toBeUndefined();
    expect(parseListDeclaration('X.\n\nSortable: . Filterable: . Default order: `create_time desc`.')).toEqual({ sortable: [], filterable: [], defaultOrder: 'create_time desc' });
  });
});

describe('the resource model', () => {
  it('knows a collection by its parent, id param, schemas and standard methods', () => {
    const posts = model.byKey.get('websites/{website_id}/blog_posts')!;
    expect(posts).toMatchObject({ id: 'blog_posts', kind: 'collection', scope: 'website', parent: 'websites/{website_id}', idParam: 'blog_post_id', schemaName: 'BlogPost', area: 'Blog', listProperty: 'blog_posts' });
    expect(posts.create?.validateOnly).toBe(true);
    expect(posts.update?.ifMatch).toBe(true);
    expect(posts.update?.query).toContain('update_mask');
    expect(posts.delete?.path).toBe(`${API_PREFIX}websites/{website_id}/blog_posts/{blog_post_id}`);
    expect(posts.children).toEqual(['websites/{website_id}/blog_posts/{blog_post_id}/revisions', 'websites/{website_id}/blog_posts/{blog_post_id}/views']);
  });

  it('finds items addressed at the top level under the List that holds them', () => {
    const projects = model.byKey.get('accounts/{account_id}/projects')!;
    expect(projects.get?.path).toBe(`${API_PREFIX}projects/{project_id}`);
    const websites = model.byKey.get('projects/{project_id}/websites')!;
    expect(websites.get?.path).toBe(`${API_PREFIX}websites/{website_id}`);
    expect(websites.parentCollection).toBe('accounts/{account_id}/projects');
  });

  it('knows singletons (a Get and maybe an Update, no List) and their custom methods', () => {
    const dashboard = model.byKey.get('websites/{website_id}/dashboard')!;
    expect(dashboard).toMatchObject({ kind: 'singleton', schemaName: 'Dashboard' });
    expect(dashboard.update).toBeDefined();
    expect(dashboard.verbs.map((v) => [v.name, v.on, v.result])).toEqual([['reset', 'resource', 'resource']]);
    expect(model.byKey.get('websites/{website_id}/custom_domain')!.update).toBeUndefined();
  });

  it('tells a custom method answering an Operation from one answering the resource', () => {
    const index = model.byKey.get('websites/{website_id}/search_index')!;
    expect(index.verbs.find((v) => v.name === 'reindex')?.result).toBe('operation');
    const posts = model.byKey.get('websites/{website_id}/blog_posts')!;
    expect(posts.verbs.find((v) => v.name === 'publish')).toMatchObject({ on: 'resource', result: 'resource' });
    expect(posts.verbs.find((v) => v.name === 'publish')?.endpoint.requestSchema).toBeUndefined();
    const categories = model.byKey.get('websites/{website_id}/blog_categories')!;
    expect(categories.verbs.find((v) => v.name === 'move')?.endpoint.requestSchemaName).toBe('MoveBlogCategoryRequest');
    const settings = model.byKey.get('websites/{website_id}/settings')!;
    expect(settings.verbs.find((v) => v.name === 'batch_update')?.on).toBe('collection');
  });

  it('maps id fields to the collection they name', () => {
    const refs = (key: string) => model.byKey.get(key)!.references;
    expect(refs('websites/{website_id}/blog_posts')).toMatchObject({
      tag_ids: { collection: 'websites/{website_id}/blog_tags', many: true },
      category_ids: { collection: 'websites/{website_id}/blog_categories', many: true },
      author_ids: { collection: 'websites/{website_id}/blog_authors', many: true },
      feature_image_media_id: { collection: 'websites/{website_id}/media', many: false },
      visible_view_ids: { collection: 'websites/{website_id}/views', many: true },
    });
    expect(refs('websites/{website_id}/customers').manual_group_ids?.collection).toBe('websites/{website_id}/customer_groups');
    expect(refs('websites/{website_id}/customer_attributes').group_id?.collection).toBe('websites/{website_id}/customer_attribute_groups');
    expect(refs('websites/{website_id}/editorial_backlog_items').source_execution_id?.collection).toBe('accounts/{account_id}/ai_executions');
    expect(refs('websites/{website_id}/editorial_plan').drafting_agent_id?.collection).toBe('accounts/{account_id}/ai_agents');
    expect(refs('accounts/{account_id}/ai_agents').preferred_model_id?.collection).toBe('ai_models');
    expect(refs('websites/{website_id}/navigation_menus/{navigation_menu_id}/items').visible_view_ids?.collection).toBe('websites/{website_id}/views');
    expect(refs('websites/{website_id}/blog_categories').parent_id?.collection).toBe('websites/{website_id}/blog_categories');
    // Idempotency keys and the URL's own ids are not choices.
    expect(refs('websites/{website_id}/blog_posts').request_id).toBeUndefined();
    expect(refs('accounts/{account_id}/ai_agents/{ai_agent_id}/versions').ai_agent_id).toBeUndefined();
  });

  it('reads fields fixed after create as immutable', () => {
    expect(model.byKey.get('websites/{website_id}/customer_attributes')!.immutable).toEqual(['key', 'type']);
    expect(model.byKey.get('projects/{project_id}/websites')!.immutable).toContain('code');
    expect(model.byKey.get('websites/{website_id}/blog_posts')!.immutable).toEqual([]);
  });

  it('leaves only the session, profile and Operation endpoints to dedicated screens', () => {
    expect(model.loose.map((l) => l.key)).toEqual(['invitations', 'users', 'users/{user_id}', 'websites/{website_id}/operations/{operation_id}']);
  });
});

describe('screen links', () => {
  it('spells a screen like the resource name it shows', () => {
    const posts = model.byKey.get('websites/{website_id}/blog_posts')!;
    const ctx: Context = { kind: 'website', websiteId: 'w1' };
    expect(screenHref(ctx, posts, {})).toBe('/w/w1/g/blog_posts');
    expect(screenHref(ctx, posts, {}, { action: 'create' })).toBe('/w/w1/g/blog_posts:create');
    expect(screenHref(ctx, posts, {}, { itemId: 'p1', action: 'publish' })).toBe('/w/w1/g/blog_posts/p1:publish');
    const views = model.byKey.get('websites/{website_id}/blog_posts/{blog_post_id}/views')!;
    expect(screenPath(views, { blog_post_id: 'p1' }, { itemId: 'v1', action: 'edit' })).toBe('blog_posts/p1/views/v1:edit');
    expect(resolveScreen(model, ctx, 'blog_posts/p1/views/v1:edit')).toMatchObject({ resource: views, itemId: 'v1', action: 'edit', params: { website_id: 'w1', blog_post_id: 'p1', view_id: 'v1' } });
  });

  it('reads a link whose colon the router percent-encoded', () => {
    const ctx: Context = { kind: 'website', websiteId: 'w1' };
    expect(resolveScreen(model, ctx, 'blog_posts%3Acreate')?.action).toBe('create');
    expect(resolveScreen(model, ctx, 'blog_posts/p1%3apublish')).toMatchObject({ itemId: 'p1', action: 'publish' });
  });

  it('refuses a link to an action the resource does not have', () => {
    const ctx: Context = { kind: 'website', websiteId: 'w1' };
    expect(resolveScreen(model, ctx, 'blog_posts/p1:frobnicate')).toBeUndefined();
    expect(resolveScreen(model, ctx, 'custom_domain:edit')).toBeUndefined(); // no Update
    expect(resolveScreen(model, ctx, 'editorial_calendar_entries:create')).toBeUndefined(); // no Create
    expect(resolveScreen(model, ctx, 'no_such_things')).toBeUndefined();
  });

  it('places account collections, projects, websites and the catalogue in the account context', () => {
    const ctx: Context = { kind: 'account', accountId: 'a1' };
    expect(resolveScreen(model, ctx, 'projects/p1/websites')?.resource.key).toBe('projects/{project_id}/websites');
    expect(resolveScreen(model, ctx, 'projects/p1/websites/w9')).toMatchObject({ itemId: 'w9', params: { project_id: 'p1', website_id: 'w9' } });
    expect(resolveScreen(model, ctx, 'ai_models')?.resource.key).toBe('ai_models');
    expect(resolveScreen(model, ctx, 'members:leave')?.action).toBe('leave');
  });
});
