/**
 * Builds the package for use outside this repository: `npm run build -w sdk` writes dist/ (ESM
 * JavaScript and type declarations) with this workspace's TypeScript 5. The generated types
 * (src/*-api.d.ts) are declarations already and tsc does not copy those, so they are copied beside
 * the emitted index.d.ts, which imports them. `--out-dir <dir>` builds elsewhere (the test builds a
 * private copy, so concurrent runs never share one dist/).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out-dir');
const outDir = at === -1 ? join(SDK, 'dist') : resolve(process.argv[at + 1] ?? '');

// A fresh directory: files of a module since removed must not linger in the package.
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const tsc = createRequire(join(SDK, 'package.json')).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', join(SDK, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
for (const file of readdirSync(join(SDK, 'src'))) {
  if (file.endsWith('.d.ts')) copyFileSync(join(SDK, 'src', file), join(outDir, file));
}
