/**
 * The SDK as someone outside this repository gets it: built to JavaScript and declarations by its
 * own build script (`npm run build -w sdk`'s scripts/build.mjs, into a private directory so runs never
 * share or reuse a stale dist/), installed as `node_modules/@siteplatform/sdk` of a temporary
 * directory outside the repository (its `package.json` and `files`, with openapi-fetch beside it as
 * npm would put it), then used from there: a strict TypeScript program type-checks against the
 * declarations, and plain `node` runs sdk/README.md's start and an example program against a real
 * server listening on a free port, on this project's fresh database.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialect } from '../support/databases.js';
import { markedBlocks } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = join(ROOT, 'sdk');
const sdkRequire = createRequire(join(SDK, 'package.json'));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end (killed after `timeoutMs`) with only PATH and HOME of this run's environment. */
function run(args: string[], cwd: string, timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? cwd };
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Strict client program: compiles only if the declarations type the API (paths, params, errors). */
const PROGRAM = `import { ApiError, data, myWebsites, signIn, type MyWebsite, type Schemas } from '@siteplatform/sdk';

export async function names(baseUrl: string): Promise<string[]> {
  const api = await signIn({ baseUrl, email: 'ada@example.com', password: 'analytical9' });
  const expires: Date = api.session.expireTime;
  const seen: MyWebsite[] = [];
  for await (const entry of myWebsites(api, { websiteQuery: { order_by: 'display_name' } })) seen.push(entry);
  const website: Schemas['Website'] = await data(api.GET('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: seen[0]!.website.id } } }));
  // @ts-expect-error not a path of the API
  await api.GET('/tenant-api/v1/no_such_collection');
  // @ts-expect-error website_id is required
  await api.GET('/tenant-api/v1/websites/{website_id}', { params: { path: {} } });
  try {
    await api.PATCH('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: website.id } }, body: { display_name: 'x' } });
  } catch (e) {
    if (ApiError.is(e, 'INVALID_ARGUMENT', 'ABORTED')) {
      const violation: string | undefined = e.violation('display_name');
      const status: 'INVALID_ARGUMENT' | 'ABORTED' | string = e.status;
      console.log(violation, status, e.code + 1, e.requestId, e.body.error.details.length, expires);
    }
  }
  // @ts-expect-error not a canonical status
  ApiError.is(undefined, 'TEAPOT');
  return seen.map(({ website }) => website.display_name ?? '');
}
`;

/** The outside user's program: sign-up hand-off, sign-in, my websites over page tokens, refresh, typed errors. */
const EXAMPLE = `import { ApiError, clientWithToken, data, myWebsites, signIn, signUp, waitForOperation } from '@siteplatform/sdk';

const baseUrl = process.argv[2];
const email = 'grace@example.com';
const password = 'compiler-1952';
const out = {};

// Sign up and continue with the hand-off: no password typed twice.
const { client: first, operation, accountId } = await signUp({ baseUrl, email, password, websiteName: 'Grace Builds', captchaToken: 'dev-captcha' });
out.provisioned = (await waitForOperation(first, operation, { initialDelayMs: 20 })).response.provisioning_status;

// Later: sign in with the password. Two more websites in a second project.
const tokens = [];
const api = await signIn({ baseUrl, email, password, onToken: (t) => tokens.push(t) });
const project = await data(api.POST('/tenant-api/v1/accounts/{account_id}/projects', { params: { path: { account_id: accountId } }, body: { display_name: 'Second project' } }));
for (const name of ['Grace Two', 'Grace Three']) {
  await data(api.POST('/tenant-api/v1/projects/{project_id}/websites', { params: { path: { project_id: project.id } }, body: { display_name: name } }));
}

// My websites: every account, project and website, one website per page.
out.websites = [];
for await (const { account, project, website } of myWebsites(api, { websiteQuery: { page_size: 1, order_by: 'display_name' } })) {
  out.websites.push([account.id === accountId, project.display_name, website.display_name]);
}

// Refresh: on demand, and on its own when a token is close to its end.
await api.session.refresh();
out.tokensAfterSignInAndRefresh = tokens.length;
out.expiresInMinutes = Math.round((api.session.expireTime.getTime() - Date.now()) / 60000);
const refreshed = [];
const saved = clientWithToken({ baseUrl, token: api.session.token, expireTime: new Date(Date.now() + 30_000), onToken: (t) => refreshed.push(t) });
await data(saved.GET('/tenant-api/v1/accounts'));
await data(saved.GET('/tenant-api/v1/accounts'));
out.autoRefreshes = refreshed.length;

// Typed errors carrying the canonical body.
try {
  await api.POST('/tenant-api/v1/projects/{project_id}/websites', { params: { path: { project_id: project.id } }, body: { display_name: 'Bad', code: 'Not A Code' } });
} catch (e) {
  out.invalid = {
    isApiError: e instanceof ApiError && ApiError.is(e, 'INVALID_ARGUMENT'),
    status: e.status, code: e.code, message: e.message, text: String(e),
    violation: e.violation('code'), fields: e.fieldViolations.map((v) => v.field),
    requestId: e.requestId, body: JSON.parse(JSON.stringify(e)),
  };
}
try {
  await signIn({ baseUrl, email, password: 'not-the-password-1' });
} catch (e) {
  out.wrongPassword = { status: e.status, code: e.code, is: ApiError.is(e, 'UNAUTHENTICATED') };
}
try {
  await api.GET('/tenant-api/v1/projects/{project_id}', { params: { path: { project_id: 'no-such-project' } } });
} catch (e) {
  out.missing = { status: e.status, code: e.code, isNotFound: ApiError.is(e, 'NOT_FOUND') };
}
console.log(JSON.stringify(out));
`;

let t: TestApp;
let baseUrl: string;
let home: string;
let pkg: string;

beforeAll(async () => {
  // Outside the repository: nothing here resolves through the repository's node_modules.
  home = mkdtempSync(join(inject('tempRoot') ?? tmpdir(), 'sdk-outside-'));
  pkg = join(home, 'node_modules', '@siteplatform', 'sdk');
  mkdirSync(pkg, { recursive: true });
  const [built, app] = await Promise.all([
    run([join(SDK, 'scripts', 'build.mjs'), '--out-dir', join(pkg, 'dist')], SDK, 120_000),
    startTestApp(),
  ]);
  t = app;
  expect(built.code, `the sdk build failed:\n${built.stdout}${built.stderr}`).toBe(0);
  // What `npm pack` puts in the package: package.json and the `files` (dist was built in place).
  const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { files: string[]; dependencies: Record<string, string> };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const entry of manifest.files) if (entry !== 'dist') cpSync(join(SDK, entry), join(pkg, entry), { recursive: true });
  // Its runtime dependencies, installed beside it as npm would (symlinked to the installed copies).
  for (const dependency of Object.keys(manifest.dependencies)) {
    symlinkSync(dirname(sdkRequire.resolve(`${dependency}/package.json`)), join(home, 'node_modules', dependency), 'dir');
  }
  writeFileSync(join(home, 'package.json'), JSON.stringify({ name: 'outside-user', private: true, type: 'module' }));
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // The user of sdk/README.md's start.
  await t.signUp({ email: 'ada@example.com', password: 'analytical9', website_name: 'Ada Bakes' });
}, 180_000);

afterAll(async () => {
  await t?.close();
});

describe('the sdk package built for use outside the repository', () => {
  it('holds ESM JavaScript and declarations only, its exports resolving to them', () => {
    const files = readdirSync(join(pkg, 'dist')).sort();
    expect(files).toEqual(['index.d.ts', 'index.js', 'site-api.d.ts', 'tenant-api.d.ts']);
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ type: 'module', main: './dist/index.js', types: './dist/index.d.ts' });
    for (const target of [manifest.exports['.'].types, manifest.exports['.'].default]) expect(existsSync(join(pkg, target)), target).toBe(true);
    // The source condition is for this repository's own consumers; the package does not ship src/.
    expect(existsSync(join(pkg, 'src'))).toBe(false);
  });

  it.skipIf(testDialect() !== 'sqlite')('type-checks a strict TypeScript program against its declarations', async () => {
    writeFileSync(join(home, 'program.ts'), PROGRAM);
    writeFileSync(
      join(home, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [] },
        files: ['program.ts'],
      }),
    );
    const checked = await run([sdkRequire.resolve('typescript/bin/tsc'), '-p', join(home, 'tsconfig.json')], home, 120_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  }, 150_000);

  it('runs an example with plain node: signs up, signs in, lists my websites through page tokens, refreshes the token, throws typed errors', async () => {
    writeFileSync(join(home, 'example.mjs'), EXAMPLE);
    const result = await run([join(home, 'example.mjs'), baseUrl], home, 60_000);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.provisioned).toBe('ACTIVE');
    // Projects in the server's order (newest first), websites by name, one per page.
    expect(out.websites).toEqual([
      [true, 'Second project', 'Grace Three'],
      [true, 'Second project', 'Grace Two'],
      [true, expect.any(String), 'Grace Builds'],
    ]);
    expect(out.tokensAfterSignInAndRefresh).toBe(2);
    expect(out.expiresInMinutes).toBe(60);
    // 30 s left of a token is within the default minute: refreshed before the first call, not again.
    expect(out.autoRefreshes).toBe(1);
    expect(out.invalid).toMatchObject({ isApiError: true, status: 'INVALID_ARGUMENT', code: 400, fields: ['code'], requestId: expect.stringMatching(/^req_/) });
    expect(out.invalid.violation).toEqual(expect.any(String));
    expect(out.invalid.text).toBe(`ApiError INVALID_ARGUMENT (400): ${out.invalid.message} [${out.invalid.requestId}]`);
    expect(out.invalid.body).toEqual({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: out.invalid.message, details: expect.arrayContaining([{ type: 'REQUEST_INFO', request_id: out.invalid.requestId }]) },
    });
    expect(out.wrongPassword).toEqual({ status: 'UNAUTHENTICATED', code: 401, is: true });
    expect(out.missing).toEqual({ status: 'NOT_FOUND', code: 404, isNotFound: true });
  }, 90_000);

  it("runs sdk/README.md's start as written with plain node", async () => {
    const [start] = markedBlocks(readFileSync(join(SDK, 'README.md'), 'utf8'), 'runnable', ['js']).map((block) => block.code);
    expect(start, 'sdk/README.md has a <!-- runnable --> js block').toBeDefined();
    expect(start).toContain("'http://127.0.0.1:8080'");
    // The start names the default local server; this one listens on a free port.
    writeFileSync(join(home, 'start.mjs'), start!.replace("'http://127.0.0.1:8080'", JSON.stringify(baseUrl)));
    const result = await run([join(home, 'start.mjs')], home, 60_000);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Ada Bakes http:\/\/\S+\n$/);
  }, 90_000);
});
