/**
 * The README's walk-through runs as written: its runnable shell block(s) (a ```sh fence right under a
 * `<!-- runnable ... -->` comment) run with `bash -euo pipefail` against the real server, built and
 * started the way `npm start` does (`tsc`, then `node dist/src/main.js`, PORT=0), on this project's
 * database. Any failing command fails the test, so the README cannot rot unnoticed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, testDialect, type FreshDatabase } from '../support/databases.js';
import { markedBlocks } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end (bounded by `timeoutMs`, then killed) and collects its output. */
function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${opts.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whether a command is on the PATH (it answers `--version`). */
const available = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

/** A minimal environment: no variable of the test run (TEST_*, DATABASE_URL, NODE_ENV) leaks into the children. */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // `node` first on the PATH, for the README's `field` helper: the same Node that runs the tests.
  const env: NodeJS.ProcessEnv = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? ROOT };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

const blocks = markedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'runnable', ['sh', 'bash']).map((block) => block.code);
// A private build directory under dist/ (node_modules resolve from the repository root), so concurrent
// runs (the sqlite and postgres projects, other checkouts' builds) never write the same files.
const outDir = join(ROOT, 'dist', `readme-test-${testDialect()}-${randomBytes(4).toString('hex')}`);
let fresh: FreshDatabase | undefined;
let server: ChildProcess | undefined;
let serverExited: Promise<void> | undefined;
let serverLog = '';
let base = '';

beforeAll(async () => {
  // The README promises curl and bash; CI installs curl when missing (.ci/run). Fail, do not skip:
  // a skipped check is how the walk-through rotted before.
  for (const tool of ['bash', 'curl']) expect(available(tool), `the README walk-through needs ${tool} on the PATH`).toBe(true);
  const build = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir, '--tsBuildInfoFile', join(outDir, '.tsbuildinfo')], {
    env: cleanEnv({}),
    timeoutMs: 170_000,
  });
  expect(build.code, `npm run build failed:\n${build.stdout}${build.stderr}`).toBe(0);

  fresh = await freshDatabase();
  const child = spawn(process.execPath, [join(outDir, 'src/main.js')], {
    cwd: ROOT,
    env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: fresh.dataDir, DATABASE_URL: fresh.url, LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  serverExited = new Promise((resolve) => child.on('exit', () => resolve()));
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no ready line within 60 s:\n${serverLog}`)), 60_000);
    const onData = (chunk: Buffer) => {
      serverLog += chunk;
      // RUNTIME.md: one line when ready, containing the base URL.
      const ready = /listening on (http:\/\/\S+)/.exec(serverLog);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready:\n${serverLog}`)));
  });
}, 240_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    // SIGTERM: main.ts closes the app, the worker and the database, so the test database can be dropped.
    server.kill('SIGTERM');
    const killer = setTimeout(() => server?.kill('SIGKILL'), 10_000);
    await serverExited;
    clearTimeout(killer);
  }
  await fresh?.cleanup();
  rmSync(outDir, { recursive: true, force: true });
}, 60_000);

describe('README', () => {
  it('marks its walk-through as runnable', () => {
    // Without a marked block the next test would run nothing and pass.
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(block).toContain('$BASE');
  });

  it(
    'walk-through runs as written against a freshly started server, every call succeeds, and it ends with a successful write',
    async () => {
      const script = blocks.join('\n');
      const result = await run('bash', ['-euo', 'pipefail', '-c', script], { env: cleanEnv({ BASE: base }), timeoutMs: 170_000 });
      const transcript = `--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}\n--- server log\n${serverLog}`;
      expect(result.code, transcript).toBe(0);
      // Each call's status line (`HTTP 200 PATCH …`, printed by the README's `api` helper): all 2xx, the last a write.
      const statuses = [...result.stderr.matchAll(/^HTTP (\d{3}) ([A-Z]+) /gm)].map((m) => ({ code: Number(m[1]), method: m[2] }));
      expect(statuses.length, transcript).toBeGreaterThan(5);
      expect(statuses.filter((s) => s.code >= 300), transcript).toEqual([]);
      expect(['POST', 'PATCH', 'DELETE'], transcript).toContain(statuses.at(-1)!.method);
    },
    180_000,
  );
});
