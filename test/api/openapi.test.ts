import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import * as parsers from '@stoplight/spectral-parsers';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialect } from '../support/databases.js';

const { Spectral, Document } = spectralCore;
const SURFACES = ['tenant', 'site', 'engine'] as const;
const COMMITTED = join(import.meta.dirname, '..', '..', 'docs', 'openapi');

let t: TestApp;
beforeAll(async () => {
  // A fixed base URL keeps the generated documents identical to the committed copies.
  t = await startTestApp({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' });
});
afterAll(() => t?.close());

async function documentOf(surface: string) {
  const res = await t.request('GET', `/${surface}-api/v1/openapi.json`);
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** Stable text of a document: keys sorted, so diffs show real changes only. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, stable((value as Record<string, unknown>)[k])]));
  }
  return value;
}

describe('OpenAPI documents', () => {
  for (const surface of SURFACES) {
    it(`${surface}: is OpenAPI 3.1 and lints clean with spectral:oas`, async () => {
      const doc = await documentOf(surface);
      expect(doc.openapi).toBe('3.1.0');
      const spectral = new Spectral();
      spectral.setRuleset(oas as never);
      const results = await spectral.run(new Document(JSON.stringify(doc), parsers.Json as never, `${surface}.json`));
      const problems = results.map((r) => `${r.code} (${['error', 'warn', 'info', 'hint'][r.severity]}) at ${r.path.join('.')}: ${r.message}`);
      expect(problems.filter((p) => /\((error|warn)\)/.test(p))).toEqual([]);
    });

    it(`${surface}: every operation has an operationId and documents its error body`, async () => {
      const doc = await documentOf(surface);
      for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
        for (const [method, op] of Object.entries<any>(item)) {
          expect(op.operationId, `${method} ${path}`).toMatch(/^[A-Z][A-Za-z]+$/);
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['4XX', '5XX']));
        }
      }
    });

    it(`${surface}: matches the committed copy in docs/openapi (regenerate with UPDATE_OPENAPI=1)`, async () => {
      const text = JSON.stringify(stable(await documentOf(surface)), null, 2) + '\n';
      const file = join(COMMITTED, `${surface}-api.json`);
      if (process.env.UPDATE_OPENAPI === '1' && testDialect() === 'sqlite') writeFileSync(file, text);
      expect(text).toBe(readFileSync(file, 'utf8'));
    });
  }

  it('serves a human-readable API reference', async () => {
    const res = await t.request('GET', '/tenant-api/v1/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
