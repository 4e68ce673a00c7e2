/**
 * The committed OpenAPI documents make a usable typed client: openapi-typescript generates types
 * from them and a small client program (openapi-fetch) type-checks under `strict`, including lines
 * that must NOT compile (`@ts-expect-error`: output-only fields in a body, a string page_size, a
 * sign-up without captcha_token). openapi-typescript and its TypeScript 5 live in the `sdk`
 * workspace (the root builds with TypeScript 7, which openapi-typescript does not support).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDialect } from '../support/databases.js';

const ROOT = join(import.meta.dirname, '..', '..');
const sdkRequire = createRequire(join(ROOT, 'sdk', 'package.json'));

/** The TypeScript 5 of the sdk workspace (the root's TypeScript 7 has no compiler API), typed loosely here. */
const ts = () => sdkRequire('typescript') as any;

/** The SDK's own generator (also what writes sdk/src/*-api.d.ts), so this checks the SDK's types. */
async function generateTypes(surface: 'tenant' | 'site'): Promise<string> {
  // @ts-expect-error plain JavaScript module of the sdk workspace
  const { generateTypes: generate } = await import('../../sdk/scripts/generate.mjs');
  return generate(surface);
}

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './tenant-api';
import type { components as SignupComponents } from './site-api';

type Schemas = components['schemas'];
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });

export async function editFirstPage(websiteId: string): Promise<string | undefined> {
  const listed = await client.GET('/tenant-api/v1/websites/{website_id}/cms_pages', {
    params: { path: { website_id: websiteId }, query: { page_size: 10, order_by: 'create_time desc' } },
  });
  if (listed.error) {
    const status: Schemas['Error']['status'] = listed.error.error.status;
    for (const detail of listed.error.error.details) {
      if (detail.type === 'FIELD_VIOLATION') return \`\${status}: \${detail.field} \${detail.description}\`;
      if (detail.type === 'REQUEST_INFO') return detail.request_id;
    }
    return status;
  }
  const total: number = listed.data.total_size;
  const page: Schemas['CmsPage'] | undefined = listed.data.cms_pages[0];
  if (!page) return String(total);
  // Always-present fields are not optional.
  const etag: string = page.etag;
  const title: string = page.title;
  const updated = await client.PATCH('/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', {
    params: { path: { website_id: websiteId, cms_page_id: page.id }, header: { 'If-Match': etag } },
    body: { title: title + '!', meta_description: null },
  });
  if (updated.error?.error.status === 'ABORTED') {
    const current = updated.error.error.details.find((d: Schemas['ErrorDetail']) => d.type === 'RESOURCE_INFO');
    return current?.type === 'RESOURCE_INFO' ? JSON.stringify(current.resource) : undefined;
  }
  return updated.data?.update_time;
}

export async function upload(websiteId: string, bytes: Blob): Promise<number | undefined> {
  const parts: Schemas['MediaUpload'] = { file: bytes, alt_text: 'A loaf' };
  const created = await client.POST('/tenant-api/v1/websites/{website_id}/media', {
    params: { path: { website_id: websiteId } },
    body: parts,
    bodySerializer(body: Schemas['MediaUpload']) {
      const form = new FormData();
      form.append('file', body.file);
      if (body.alt_text !== undefined) form.append('alt_text', body.alt_text);
      return form;
    },
  });
  return created.data?.file_size;
}

export function operationStep(op: Schemas['Operation']): string | undefined {
  if (op.done && op.error) return op.error.status;
  return op.metadata.step;
}

// @ts-expect-error output-only fields are not properties of an update body
export const outputOnly: Schemas['CmsPageUpdate'] = { create_time: '2026-01-01T00:00:00Z' };
// The etag is: on Update it is a precondition (AIP-154), checked like If-Match.
export const precondition: Schemas['CmsPageUpdate'] = { etag: '1-abc', title: 'Renamed' };
// @ts-expect-error page_size is an integer
export const stringPageSize: paths['/tenant-api/v1/websites/{website_id}/cms_pages']['get']['parameters']['query'] = { page_size: '10' };
// @ts-expect-error status is one of the canonical codes
export const unknownStatus: Schemas['Error']['status'] = 'TEAPOT';
// @ts-expect-error captcha_token is required on sign-up
export const noCaptcha: SignupComponents['schemas']['SignUpRequest'] = { email: 'a@example.com', password: 'correct-horse-9', website_name: 'A', default_language: 'en' };
`;

// Dialect-free: runs once, in the SQLite project.
describe.skipIf(testDialect() !== 'sqlite')('types generated from the committed OpenAPI', () => {
  it('type-check a strict client program, refusing what the API refuses', async () => {
    // Inside the sdk workspace, so `openapi-fetch` resolves as it does for the SDK.
    const dir = mkdtempSync(join(ROOT, 'sdk', '.types-check-'));
    try {
      writeFileSync(join(dir, 'tenant-api.ts'), await generateTypes('tenant'));
      writeFileSync(join(dir, 'site-api.ts'), await generateTypes('site'));
      writeFileSync(join(dir, 'program.ts'), PROGRAM);
      const program = ts().createProgram([join(dir, 'program.ts')], {
        strict: true,
        noEmit: true,
        target: ts().ScriptTarget.ES2022,
        module: ts().ModuleKind.ESNext,
        moduleResolution: ts().ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        skipLibCheck: true,
      });
      const diagnostics = ts().getPreEmitDiagnostics(program).map((d: any) => ts().flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Generating and checking a 10 000-line declaration takes a while on a small CI machine.
  }, 240_000);
});
