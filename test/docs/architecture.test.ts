/**
 * docs/architecture.md's example area compiles and works. Its `<!-- example-file: <path> -->` blocks
 * are written at their paths into a scratch copy of the repository (every other file a symlink to
 * the real one), type-checked with tsc, and the example's own test file runs here, against the real
 * platform with the example area added (through a generated `test/support/app.ts` that passes
 * startTestApp's `areas` and `migrate`), on this project's database. The product never ships the
 * example; the doc cannot drift from the code.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/databases.js';
import { markedBlocks } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHIM = 'test/support/app.ts';

const examples = markedBlocks(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'), 'example-file:', ['ts']).map(({ note, code }) => ({ path: note, code }));
const find = (what: string, test: (path: string) => boolean) => {
  const found = examples.find((e) => test(e.path));
  if (!found) throw new Error(`docs/architecture.md shows no example ${what} (a \`<!-- example-file: … -->\` block)`);
  return found;
};
const areaFile = find('area (src/<area>/<area>.area.ts)', (p) => /^src\/[^/]+\/[^/]+\.area\.ts$/.test(p));
const migrationFile = find('migration (src/migrations/…)', (p) => p.startsWith('src/migrations/'));
const testFile = find('test (test/api/….test.ts)', (p) => /^test\/api\/.+\.test\.ts$/.test(p));
const areaExport = /export const (\w+): Area\b/.exec(areaFile.code)?.[1];
if (!areaExport) throw new Error(`${areaFile.path} exports no \`const …: Area\``);

// Inside the repository (dist/ is git-ignored and outside the test globs), so packages resolve from its
// node_modules; one directory per run and project, since both projects run this file at once.
const scratch = join(ROOT, 'dist', `doc-example-${testDialect()}-${randomBytes(4).toString('hex')}`);
const written = new Set([...examples.map((e) => e.path), SHIM]);
const isAncestor = (dir: string) => [...written].some((path) => path.startsWith(`${dir}/`));

/** Mirrors `dir` of the repository into the scratch tree: directories holding written files are recreated, the rest symlinked. */
function mirror(dir: string): void {
  mkdirSync(join(scratch, dir), { recursive: true });
  const real = join(ROOT, dir);
  if (!existsSync(real)) return;
  for (const entry of readdirSync(real)) {
    const path = dir ? `${dir}/${entry}` : entry;
    if (written.has(path)) continue;
    if (isAncestor(path)) mirror(path);
    else symlinkSync(join(real, entry), join(scratch, path));
  }
}

mirror('src');
mirror('test');
for (const { path, code } of examples) {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), code);
}
const importPath = (from: string, to: string) => {
  const path = relative(dirname(join(scratch, from)), to).replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
};
const realApp = importPath(SHIM, join(ROOT, SHIM));
writeFileSync(
  join(scratch, SHIM),
  `// Written by test/docs/architecture.test.ts: the real test helpers, with the doc's example area added.
import type { Kysely } from 'kysely';
import * as real from '${realApp}';
import { areas } from '${importPath(SHIM, join(scratch, 'src/areas.ts'))}';
import { ${areaExport} } from '${importPath(SHIM, join(scratch, areaFile.path))}';
import { up } from '${importPath(SHIM, join(scratch, migrationFile.path))}';
export * from '${realApp}';

export function startTestApp(env: Record<string, string> = {}, opts: NonNullable<Parameters<typeof real.startTestApp>[1]> = {}): ReturnType<typeof real.startTestApp> {
  return real.startTestApp(env, { ...opts, areas: [...areas, ${areaExport}], migrate: (db: Kysely<any>) => up(db) });
}
`,
);
writeFileSync(
  join(scratch, 'tsconfig.json'),
  JSON.stringify({
    extends: join(ROOT, 'tsconfig.json'),
    compilerOptions: { noEmit: true, rootDir: ROOT, incremental: false },
    include: [...written],
    // The default would exclude the base config's outDir (dist/), which holds this scratch tree.
    exclude: [],
  }),
);

// Registered before the example's own hooks, so (hooks run as a stack) it runs after its afterAll.
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('docs/architecture.md: the minimal area', () => {
  it('shows a declaration, an area, a migration and a test, and they type-check against the code', async () => {
    expect(examples.map((e) => e.path).filter((p) => p.endsWith('.resource.ts')).length).toBeGreaterThan(0);
    const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const tsc = spawn(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(scratch, 'tsconfig.json')], { cwd: scratch });
      let output = '';
      tsc.stdout.on('data', (chunk) => (output += chunk));
      tsc.stderr.on('data', (chunk) => (output += chunk));
      tsc.on('error', reject);
      tsc.on('close', (code) => resolve({ code, output }));
    });
    expect(result.output.replaceAll(scratch, '<example>')).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);
});

// The example's own tests (describe/it/beforeAll at its top level) register here, in this file.
await import(pathToFileURL(join(scratch, testFile.path)).href);
