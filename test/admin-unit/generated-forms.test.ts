// Forms, list controls, error mapping and conflict resolution of the admin's generated screens:
// pure functions over the committed tenant OpenAPI and the canonical error body.
import { describe, expect, it } from 'vitest';
import doc from '../../docs/openapi/tenant-api.json' with { type: 'json' };
import { buildApiModel } from '../../admin/src/lib/openapi-model/model.js';
import type { OpenApiDocument, ResourceModel } from '../../admin/src/lib/openapi-model/types.js';
import { buildCreateBody, buildUpdateBody, formFields, initialValues, validateValues, type FormField } from '../../admin/src/lib/openapi-model/form.js';
import { mapError, normalizeFieldPath, placeField } from '../../admin/src/lib/openapi-model/errors.js';
import { conflictRows, keepMine, takeTheirs } from '../../admin/src/lib/openapi-model/conflict.js';
import { buildFilter, filterControls, listColumns, listQuery, toggleOrder, validateListSearch } from '../../admin/src/lib/openapi-model/list.js';
import { operationProgress, operationParams, pollDelayMs } from '../../admin/src/lib/openapi-model/operations.js';

const model = buildApiModel(doc as unknown as OpenApiDocument);
const res = (key: string): ResourceModel => model.byKey.get(key)!;
const byName = (fields: FormField[], name: string) => fields.find((f) => f.name === name)!;
const POSTS = 'websites/{website_id}/blog_posts';

describe('forms generated from request schemas', () => {
  it('chooses a control for each field from its type, enum, length and reference', () => {
    const posts = res(POSTS);
    const fields = formFields(posts.createSchema, { mode: 'create', resource: posts });
    expect(byName(fields, 'title')).toMatchObject({ kind: 'text', required: true, maxLength: 255 });
    expect(byName(fields, 'content')).toMatchObject({ kind: 'textarea' });
    expect(byName(fields, 'state')).toMatchObject({ kind: 'select', options: ['DRAFT', 'SCHEDULED', 'PUBLISHED'] });
    expect(byName(fields, 'publish_time').kind).toBe('datetime');
    expect(byName(fields, 'tag_ids')).toMatchObject({ kind: 'references', reference: { collection: 'websites/{website_id}/blog_tags', many: true }, label: 'Tags' });
    expect(byName(fields, 'feature_image_media_id')).toMatchObject({ kind: 'reference', label: 'Feature image media' });
    const customers = res('websites/{website_id}/customers');
    const cf = formFields(customers.createSchema, { mode: 'create', resource: customers });
    expect(byName(cf, 'email').kind).toBe('email');
    expect(byName(cf, 'password').kind).toBe('password');
    expect(byName(cf, 'tags').kind).toBe('tags');
    expect(byName(cf, 'is_active').kind).toBe('boolean');
  });

  it('leaves output-only fields, the etag and the idempotency key out of a form', () => {
    const posts = res(POSTS);
    const names = formFields(posts.createSchema, { mode: 'create', resource: posts }).map((f) => f.name);
    for (const hidden of ['name', 'id', 'etag', 'create_time', 'update_time', 'request_id', 'field_provenance']) expect(names).not.toContain(hidden);
  });

  it('shows immutable fields read-only on edit, editable on create', () => {
    const attrs = res('websites/{website_id}/customer_attributes');
    expect(byName(formFields(attrs.updateSchema, { mode: 'update', resource: attrs }), 'key').readOnly).toBe(true);
    expect(byName(formFields(attrs.createSchema, { mode: 'create', resource: attrs }), 'key').readOnly).toBe(false);
  });

  it('edits nested objects as fieldsets and free-form ones as JSON', () => {
    const schema = {
      type: 'object',
      properties: {
        address: { type: 'object', properties: { city: { type: 'string', maxLength: 50 }, zip: { type: 'string', maxLength: 10 } }, required: ['city'] },
        attributes: { type: 'object', additionalProperties: true },
        widgets: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } },
      },
    };
    const fields = formFields(schema, { mode: 'create' });
    expect(byName(fields, 'address')).toMatchObject({ kind: 'fieldset', fields: [{ path: 'address.city', required: true }, { path: 'address.zip' }] });
    expect(byName(fields, 'attributes').kind).toBe('json');
    expect(byName(fields, 'widgets').kind).toBe('json');
    const values = initialValues(fields);
    (values.address as Record<string, string>).city = 'Lyon';
    values.attributes = '{"color": "red"}';
    expect(buildCreateBody(fields, values).body).toEqual({ address: { city: 'Lyon' }, attributes: { color: 'red' } });
    values.attributes = '{oops';
    expect(buildCreateBody(fields, values).invalid).toEqual({ attributes: 'Not valid JSON.' });
  });

  it('starts a create form from the schema defaults and sends only what holds a value', () => {
    const posts = res(POSTS);
    const fields = formFields(posts.createSchema, { mode: 'create', resource: posts });
    const values = initialValues(fields);
    values.title = 'Hello';
    const { body } = buildCreateBody(fields, values);
    expect(body.title).toBe('Hello');
    expect(body).not.toHaveProperty('content');
    expect(body).not.toHaveProperty('tag_ids');
  });

  it('sends only the changed fields on update, with update_mask so an emptied field is cleared', () => {
    const posts = res(POSTS);
    const fields = formFields(posts.updateSchema, { mode: 'update', resource: posts });
    const original = { title: 'Old', meta_title: 'SEO', tag_ids: ['t1'], state: 'DRAFT', content: '<p>x</p>' };
    const values = initialValues(fields, original);
    values.title = 'New';
    values.meta_title = '';
    values.tag_ids = [];
    const { body, updateMask } = buildUpdateBody(fields, values, original);
    expect(body).toEqual({ title: 'New', meta_title: null, tag_ids: [] });
    expect(updateMask.sort()).toEqual(['meta_title', 'tag_ids', 'title']);
    expect(buildUpdateBody(fields, initialValues(fields, original), original)).toMatchObject({ body: {}, updateMask: [] });
  });

  it('checks required, length, pattern and bounds before asking the server', () => {
    const fields = formFields(
      {
        type: 'object',
        required: ['title'],
        properties: {
          title: { type: 'string', maxLength: 5 },
          url: { type: 'string', pattern: '^https?://' },
          n: { type: 'integer', minimum: 1, maximum: 3 },
        },
      },
      { mode: 'create' },
    );
    expect(validateValues(fields, { title: '', url: '', n: '' }, 'create')).toEqual({ title: 'Required.' });
    expect(validateValues(fields, { title: 'toolong', url: 'ftp://x', n: 4 }, 'create')).toEqual({
      title: 'At most 5 characters.',
      url: 'Not in the expected format.',
      n: 'At most 3.',
    });
    // An update that leaves a field empty does not re-require it.
    expect(validateValues(fields, { title: '', url: '', n: '' }, 'update')).toEqual({});
  });
});

describe('errors shown in place', () => {
  const body = (status: string, code: number, details: unknown[], message = 'm') => ({ error: { code, status, message, details } });

  it('puts field violations on their fields, nested paths on the control that holds them', () => {
    const mapped = mapError(
      body('INVALID_ARGUMENT', 400, [
        { type: 'FIELD_VIOLATION', field: 'title', description: 'must not be blank' },
        { type: 'FIELD_VIOLATION', field: 'attributes.color', description: 'unknown attribute' },
        { type: 'FIELD_VIOLATION', field: 'widgets[0].settings.interval', description: 'must be at most 60' },
        { type: 'FIELD_VIOLATION', field: 'page_size', description: 'too large' },
        { type: 'REQUEST_INFO', request_id: 'req-123' },
      ]),
      ['title', 'attributes', 'widgets'],
    );
    expect(mapped.fieldErrors).toEqual({
      title: 'must not be blank',
      attributes: 'color: unknown attribute',
      widgets: '0.settings.interval: must be at most 60',
    });
    expect(mapped.otherViolations).toEqual([{ field: 'page_size', description: 'too large' }]);
    expect(mapped.requestId).toBe('req-123');
    expect(mapped.summary).toContain('Reference: req-123');
    expect(mapped.summary).toContain('page_size: too large');
  });

  it('names nested controls by dotted path whichever way the server indexes arrays', () => {
    expect(normalizeFieldPath('widgets[0].settings.interval')).toBe('widgets.0.settings.interval');
    expect(placeField('address.city', ['address', 'address.city'])).toBe('address.city');
    expect(placeField('nothing', ['title'])).toBeUndefined();
  });

  it('gives a 409 ABORTED the current resource from its RESOURCE_INFO detail', () => {
    const current = { title: 'Theirs', etag: '"7"' };
    const mapped = mapError(body('ABORTED', 409, [{ type: 'RESOURCE_INFO', resource: current }, { type: 'REQUEST_INFO', request_id: 'r9' }]));
    expect(mapped.current).toEqual(current);
    expect(mapped.summary).toMatch(/changed this while you were editing/);
  });

  it('tells when to retry a 429 from its RETRY_INFO detail', () => {
    const mapped = mapError(body('RESOURCE_EXHAUSTED', 429, [{ type: 'RETRY_INFO', retry_delay: '30s' }]));
    expect(mapped.retryAfterSeconds).toBe(30);
    expect(mapped.summary).toContain('Try again in 30 s.');
  });

  it('reads the SDK ApiError shape and a failure without a body', () => {
    const apiError = Object.assign(new Error('no'), { code: 403, status: 'PERMISSION_DENIED', details: [], requestId: 'h-1' });
    expect(mapError(apiError)).toMatchObject({ status: 'PERMISSION_DENIED', requestId: 'h-1' });
    expect(mapError(new TypeError('Failed to fetch')).status).toBe('UNAVAILABLE');
  });
});

describe('a 409 conflict resolved', () => {
  const posts = res(POSTS);
  const fields = formFields(posts.updateSchema, { mode: 'update', resource: posts });
  const base = { title: 'A', meta_title: 'M', etag: '"1"' };
  const current = { title: 'A', meta_title: 'Their M', etag: '"2"' };

  it('shows what changed on each side', () => {
    const yours = initialValues(fields, base);
    yours.title = 'Mine';
    yours.meta_title = 'My M';
    const rows = conflictRows(fields, base, yours, current);
    expect(rows.map((r) => [r.path, r.changedByYou, r.changedByThem, r.clash])).toEqual([
      ['meta_title', true, true, true],
      ['title', true, false, false],
    ].sort((a, b) => fields.findIndex((f) => f.name === a[0]) - fields.findIndex((f) => f.name === b[0])));
  });

  it('keeps mine on top of the current resource with its etag, or takes theirs', () => {
    const yours = initialValues(fields, base);
    yours.title = 'Mine';
    const kept = keepMine(fields, base, yours, current);
    expect(kept.etag).toBe('"2"');
    expect(kept.values.title).toBe('Mine');
    expect(kept.values.meta_title).toBe('Their M');
    // Re-sending sends exactly the person's change against the current resource.
    expect(buildUpdateBody(fields, kept.values, kept.original)).toMatchObject({ body: { title: 'Mine' }, updateMask: ['title'] });
    const taken = takeTheirs(fields, current);
    expect(taken.values.title).toBe('A');
    expect(taken.etag).toBe('"2"');
  });
});

describe('list screens', () => {
  const posts = res(POSTS);

  it('offers a control per declared filter and builds the AIP-160 filter', () => {
    const controls = filterControls(posts);
    expect(controls.map((c) => [c.field, c.kind])).toEqual([
      ['create_time', 'range'],
      ['update_time', 'range'],
      ['title', 'text'],
      ['url_key', 'text'],
      ['state', 'select'],
      ['publish_time', 'range'],
      ['category_ids', 'has'],
      ['tag_ids', 'has'],
      ['author_ids', 'has'],
    ]);
    expect(buildFilter(controls, { title: 'say "hi"', state: 'DRAFT', 'create_time.from': '2026-01-01T00:00:00Z', tag_ids: 't1' })).toBe(
      'create_time >= "2026-01-01T00:00:00Z" AND title:"say \\"hi\\"" AND state = DRAFT AND tag_ids:"t1"',
    );
    const pages = res('websites/{website_id}/cms_pages');
    expect(buildFilter(filterControls(pages), { is_active: 'true' })).toBe('is_active = true');
  });

  it('sends only declared sort keys and a page size', () => {
    expect(listQuery(posts, { order_by: 'title desc, content', page_token: 'tok' })).toEqual({ order_by: 'title desc', page_token: 'tok', page_size: 25 });
    expect(toggleOrder(undefined, 'title')).toBe('title');
    expect(toggleOrder('title', 'title')).toBe('title desc');
    expect(toggleOrder('title desc', 'title')).toBeUndefined();
  });

  it('keeps only what a list understands from the URL', () => {
    expect(validateListSearch({ filter: { state: 'DRAFT', x: 3 }, page_size: '50', page_token: '', junk: 1, back: ['a', 2] })).toEqual({
      filter: { state: 'DRAFT' },
      page_size: 50,
      back: ['a'],
    });
    expect(validateListSearch({ page_size: 7 })).toEqual({});
  });

  it('chooses columns that name a row, its state and when it changed', () => {
    expect(listColumns(posts)).toEqual(['title', 'url_key', 'state', 'publish_time']);
    expect(listColumns(res('websites/{website_id}/customers'))[0]).toBe('display_name');
  });
});

describe('long work', () => {
  it('describes an Operation in progress, done, failed or cancelled', () => {
    expect(operationProgress({ done: false, metadata: { type: 'REINDEX', step: 'PAGES', progress_percent: 40 } })).toMatchObject({ label: 'Reindex: pages…', percent: 40, done: false });
    expect(operationProgress({ done: true, metadata: { type: 'REINDEX' }, response: {} })).toMatchObject({ percent: 100, failed: false });
    expect(operationProgress({ done: true, error: { status: 'CANCELLED', message: 'x' } })).toMatchObject({ cancelled: true, failed: true });
    expect(operationParams('websites/w1/operations/o1')).toEqual({ website_id: 'w1', operation_id: 'o1' });
    expect(pollDelayMs(0)).toBe(250);
    expect(pollDelayMs(20)).toBe(5000);
  });
});
