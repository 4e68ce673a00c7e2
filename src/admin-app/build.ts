/**
 * Builds the admin web app (admin/, Vite) only when its sources changed: a SHA-256 over the files
 * the bundle is made from (admin's sources and config, the SDK's sources it compiles in, the
 * lockfile) is recorded beside the output (admin/dist/.source-hash), so `npm start` after an
 * unchanged checkout skips the build. `npm start` runs it through build-main.ts; the browser tests
 * call it in their setup.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HASH_FILE = '.source-hash';

/** The repository root: the nearest ancestor of this file holding admin/package.json (from src/ or dist/src/). */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'admin', 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('admin/package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export const adminDir = (root = repositoryRoot()) => join(root, 'admin');
export const adminDistDir = (root = repositoryRoot()) => join(root, 'admin', 'dist');

/** What the bundle is built from: directories walked recursively, and single files. */
const INPUTS = ['admin/src', 'admin/index.html', 'admin/vite.config.ts', 'admin/tsconfig.json', 'admin/package.json', 'admin/public', 'sdk/src', 'sdk/package.json', 'package-lock.json'];

async function filesUnder(root: string, path: string): Promise<string[]> {
  const full = join(root, path);
  const info = await stat(full).catch(() => undefined);
  if (!info) return [];
  if (info.isFile()) return [path];
  const out: string[] = [];
  for (const entry of await readdir(full, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    out.push(...(await filesUnder(root, join(path, entry.name))));
  }
  return out;
}

/** The content hash of the admin's inputs (paths and bytes, in a stable order). */
export async function adminSourceHash(root = repositoryRoot()): Promise<string> {
  const hash = createHash('sha256');
  const files = (await Promise.all(INPUTS.map((p) => filesUnder(root, p)))).flat().sort();
  for (const file of files) {
    hash.update(`${file.split('\\').join('/')}\0`);
    hash.update(await readFile(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether admin/dist holds a build of exactly the current sources. */
export async function adminBuildIsCurrent(root = repositoryRoot()): Promise<boolean> {
  const recorded = await readFile(join(adminDistDir(root), HASH_FILE), 'utf8').catch(() => '');
  return recorded.trim() !== '' && existsSync(join(adminDistDir(root), 'index.html')) && recorded.trim() === (await adminSourceHash(root));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One builder at a time (two test processes may call this together): an exclusive lock file; a
 * waiting caller re-checks the hash once the lock is gone. A lock older than 10 minutes is a
 * crashed builder's and is taken over.
 */
async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (age > 600_000) await rm(path, { force: true });
      else await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}

/**
 * Builds admin/dist unless it is current. Answers whether it built. Vite runs as a child process
 * (its own module graph, whatever the caller loaded), from the admin workspace's own install.
 */
export async function ensureAdminBuilt(opts: { root?: string; log?: (line: string) => void } = {}): Promise<{ built: boolean; hash: string }> {
  const root = opts.root ?? repositoryRoot();
  const log = opts.log ?? (() => undefined);
  if (await adminBuildIsCurrent(root)) return { built: false, hash: await adminSourceHash(root) };
  await mkdir(adminDir(root), { recursive: true });
  return withLock(join(adminDir(root), '.build.lock'), async () => {
    const hash = await adminSourceHash(root);
    if (await adminBuildIsCurrent(root)) return { built: false, hash };
    const require = createRequire(join(adminDir(root), 'package.json'));
    const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
    log(`building the admin web app (${relative(process.cwd(), adminDir(root)) || '.'}) …`);
    // Built beside admin/dist, then moved in: a server serving admin/dist meanwhile never sees a
    // half-written build, and pages loaded from the previous index.html still find their chunks.
    const staging = join(adminDir(root), `.dist-build-${process.pid}`);
    await rm(staging, { recursive: true, force: true });
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', staging, '--emptyOutDir'], {
        cwd: adminDir(root),
        stdio: ['ignore', 'pipe', 'pipe'],
        // Whatever the caller runs under (vitest sets NODE_ENV=test): React's production build.
        env: { ...process.env, NODE_ENV: 'production' },
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the admin build failed (vite exit ${code}):\n${output}`))));
    });
    await writeFile(join(staging, HASH_FILE), `${hash}\n`);
    await moveIn(staging, adminDistDir(root));
    return { built: true, hash };
  });
}

/**
 * Moves a finished build into admin/dist: the hashed assets first (new names, nothing replaced),
 * then index.html and the rest, each by an atomic rename, the source hash last. Assets of earlier
 * builds stay an hour (a page loaded before still lazy-loads its chunks), then go.
 */
async function moveIn(staging: string, dist: string): Promise<void> {
  await mkdir(join(dist, 'assets'), { recursive: true });
  const fresh = new Set<string>();
  for (const name of await readdir(join(staging, 'assets')).catch(() => [] as string[])) {
    fresh.add(name);
    await rename(join(staging, 'assets', name), join(dist, 'assets', name));
  }
  for (const entry of await readdir(staging, { withFileTypes: true })) {
    if (entry.name === 'assets' || entry.name === HASH_FILE) continue;
    if (entry.isDirectory()) await rm(join(dist, entry.name), { recursive: true, force: true });
    await rename(join(staging, entry.name), join(dist, entry.name));
  }
  await rename(join(staging, HASH_FILE), join(dist, HASH_FILE));
  await rm(staging, { recursive: true, force: true });
  const hourAgo = Date.now() - 3_600_000;
  for (const name of await readdir(join(dist, 'assets'))) {
    if (fresh.has(name)) continue;
    const info = await stat(join(dist, 'assets', name)).catch(() => undefined);
    if (info && info.mtimeMs < hourAgo) await rm(join(dist, 'assets', name), { force: true });
  }
}
