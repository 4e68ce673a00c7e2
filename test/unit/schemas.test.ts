/**
 * Derived response schemas keep free-form objects whole: Fastify's serializer drops properties a
 * schema does not declare, so an `object` field without declared properties must be open.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ResourceDecl } from '../../src/platform/resource/declaration.js';
import { resourceSchema } from '../../src/platform/resource/schemas.js';
import { read, write } from '../../src/platform/auth/rights.js';

const decl: ResourceDecl = {
  collection: 'things',
  singular: 'Thing',
  table: 'things',
  description: 'test',
  collectionPath: 'things',
  itemPath: 'things/{thing_id}',
  fields: {
    metadata: { type: 'object', description: 'free-form' },
    labels: { type: 'object', description: 'typed map', schema: { additionalProperties: { type: 'string' } } },
  },
  filterable: [],
  sortable: [],
  defaultOrder: 'create_time desc',
  methods: ['get'],
  rights: { read: read(''), write: write('') },
};

describe('free-form object fields in responses', () => {
  it('are serialised with every property they hold (not `{}`)', async () => {
    const app = Fastify();
    // A whole resource as the server answers it: name, id, etag and timestamps are required output
    // fields of every resource schema (a missing one is a serializer error, not a dropped field).
    app.get('/thing', { schema: { response: { 200: resourceSchema(decl) } } }, async () => ({
      name: 'things/x',
      id: 'x',
      etag: '1-abc',
      create_time: '2026-01-01T00:00:00Z',
      update_time: '2026-01-01T00:00:00Z',
      metadata: { order: 42, nested: { a: [1, 2] } },
      labels: { de: 'Ding' },
    }));
    const res = await app.inject({ method: 'GET', url: '/thing' });
    expect(res.json()).toMatchObject({ metadata: { order: 42, nested: { a: [1, 2] } }, labels: { de: 'Ding' } });
    await app.close();
  });
});
