/**
 * What the served OpenAPI documents promise about shapes (issue 23): arrays declare their items and
 * are never "open objects"; a field a Create requires is not nullable; retired request fields are
 * marked deprecated with their replacement named (SPEC 9.5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const docs: Record<string, any> = {};

beforeAll(async () => {
  t = await startTestApp();
  for (const surface of ['tenant', 'site', 'engine']) docs[surface] = (await t.request('GET', `/${surface}-api/v1/openapi.json`)).json();
}, 60_000);
afterAll(() => t?.close());

/** Every schema object of a document with where it sits. */
function* schemasOf(node: unknown, path = ''): Generator<[string, any]> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* schemasOf(node[i], `${path}[${i}]`);
    return;
  }
  const record = node as Record<string, unknown>;
  if ('type' in record || 'properties' in record || 'items' in record) yield [path, record];
  for (const [key, value] of Object.entries(record)) if (key !== 'example' && key !== 'examples') yield* schemasOf(value, `${path}.${key}`);
}

const types = (schema: any): string[] => [schema.type ?? []].flat();

describe('OpenAPI shapes', () => {
  it('no array schema carries additionalProperties: every array declares its items', () => {
    const wrong: string[] = [];
    for (const [surface, doc] of Object.entries(docs)) {
      for (const [path, schema] of schemasOf(doc)) {
        if (!types(schema).includes('array')) continue;
        if ('additionalProperties' in schema) wrong.push(`${surface}${path}: additionalProperties on an array`);
        if (!schema.items) wrong.push(`${surface}${path}: an array without items`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('editorial slots and skipped_fields declare their item schemas', () => {
    const schemas = docs.tenant.components.schemas;
    for (const [component, field] of [
      ['EditorialPlan', 'slots'],
      ['EditorialPlanUpdate', 'slots'],
      ['EditorialCalendarEntry', 'skipped_fields'],
    ]) {
      const schema = schemas[component].properties[field];
      expect(types(schema), `${component}.${field}`).toContain('array');
      expect(schema.additionalProperties, `${component}.${field}`).toBeUndefined();
      expect(schema.items.type, `${component}.${field}`).toBeDefined();
    }
    expect(schemas.EditorialPlan.properties.slots.items.required).toEqual(['weekday', 'time']);
  });

  it('required fields of a Create body are not nullable; optional ones may be cleared with null', () => {
    const wrong: string[] = [];
    let required = 0;
    for (const [surface, doc] of Object.entries(docs)) {
      for (const [name, schema] of Object.entries<any>(doc.components?.schemas ?? {})) {
        if (!name.endsWith('Create')) continue;
        for (const field of schema.required ?? []) {
          required++;
          const property = schema.properties?.[field] ?? {};
          const nullable = types(property).includes('null') || (property.anyOf ?? []).some((s: any) => s.type === 'null') || (property.enum ?? []).includes(null);
          if (nullable) wrong.push(`${surface} ${name}.${field}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(required).toBeGreaterThan(20);
    const page = docs.tenant.components.schemas.CmsPageCreate;
    expect(page.properties.title.type).toBe('string');
    // An optional field stays clearable.
    expect(types(page.properties.meta_title)).toContain('null');
  });
});
