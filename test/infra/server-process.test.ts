/**
 * The server as an operator runs it (issue "Contract and developer experience", part 5): the real
 * build started as a child process on a loopback port.
 *
 * - `npm start` execs the server, so the PID a supervisor holds (npm's) leads to it, and a SIGTERM
 *   sent to npm stops the server cleanly (sqlite project only: it builds into dist/).
 * - A busy port is one line, from the pre-start check and from the server itself.
 * - SIGTERM drains: a request in flight is answered, and an Operation whose handler is stuck in a
 *   provider call is handed back to the queue, so another worker takes it at once (both databases).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_EXECUTION } from '../../src/ai/execution.resource.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { describeDb, describeOnly, freshDatabase, testDialect, type FreshDatabase } from '../support/databases.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TENANT = '/tenant-api/v1';

interface Started {
  child: ChildProcess;
  baseUrl: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a command, resolving with its exit status and output. */
function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Spawns a server command and waits for its ready line (`listening on <url>`). */
function start(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  return new Promise((done, fail) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const ready = /listening on (http:\/\/\S+)/.exec(stdout);
      if (ready) done({ child, baseUrl: ready[1], stderr: () => stderr, exited });
    });
    void exited.then(({ code }) => fail(new Error(`exited ${code} before it was ready:\n${stdout}\n${stderr}`)));
  });
}

/** A port something already listens on. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as { port: number }).port, server };
}

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeOnly('sqlite')('npm start', () => {
  let dataDir: FreshDatabase;
  beforeAll(async () => {
    dataDir = await freshDatabase();
  });
  afterAll(() => dataDir?.cleanup());

  it("execs the server, so npm's child is `node dist/src/main.js`, and a SIGTERM to npm stops it cleanly", { timeout: 240_000 }, async () => {
    const server = await start('npm', ['start', '--silent'], { PORT: '0', DATA_DIR: dataDir.dataDir, LOG_LEVEL: 'warn', WORKER: 'inline' });
    const npmPid = server.child.pid!;
    const children = childrenOf(npmPid);
    // No shell in between: sh replaced itself with the server (`exec`).
    expect(children).toHaveLength(1);
    expect(commandLine(children[0])).toBe('node dist/src/main.js');
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    process.kill(npmPid, 'SIGTERM');
    // npm forwards SIGTERM to its child; the server drains and exits 0, and npm with it.
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(alive(children[0])).toBe(false);
  });

  it('a busy port is one line before any build work: the pre-start check runs first', async () => {
    const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    expect(start.startsWith('node scripts/check-port.mjs && npm run build')).toBe(true);
    expect(start).toMatch(/&& exec node dist\/src\/main\.js$/);
    const { port, server } = await busyPort();
    try {
      const checked = await run('node', ['scripts/check-port.mjs'], { PORT: String(port) });
      expect(checked).toEqual({ code: 1, stdout: '', stderr: `port ${port} is already in use (set PORT)\n` });
      const npm = await run('npm', ['start'], { PORT: String(port), DATA_DIR: dataDir.dataDir });
      expect(npm.code).toBe(1);
      expect(npm.stderr).toContain(`port ${port} is already in use (set PORT)\n`);
      expect(npm.stdout).not.toContain('listening on');
      expect(await run('node', ['scripts/check-port.mjs'], { PORT: 'eighty' })).toMatchObject({ code: 1, stderr: 'PORT must be a number from 0 to 65535, not eighty\n' });
    } finally {
      server.close();
    }
  });
});

describeOnly('sqlite')("CI's Node check", () => {
  it('passes a Node that satisfies engines.node and fails one below it loudly', async () => {
    const range = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    expect(await run('node', ['scripts/check-node-version.mjs'])).toMatchObject({ code: 0, stdout: `Node ${process.version} satisfies engines.node "${range}"\n` });
    // 20.18 cannot load sanitize-html 2.18 (it require()s the ESM-only htmlparser2; require(esm) came in 20.19).
    const old = await run('node', ['scripts/check-node-version.mjs', '20.18.3']);
    expect(old.code).toBe(1);
    expect(old.stderr).toBe(`FAIL: Node 20.18.3 does not satisfy engines.node "${range}" in package.json; install a Node that does.\n`);
  });
});

describeDb('the built server', () => {
  const outDir = join(ROOT, '.test-build', testDialect());
  const entry = join(outDir, 'src/main.js');
  let fresh: FreshDatabase;
  let standin: ProviderStandin;
  let env: Record<string, string>;

  beforeAll(async () => {
    // A build of its own per dialect project: the two projects run in parallel and must not share an outDir.
    const built = await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir, '--tsBuildInfoFile', join(outDir, '.tsbuildinfo')]);
    expect(built, built.stdout + built.stderr).toMatchObject({ code: 0 });
    fresh = await freshDatabase();
    standin = await startProviderStandin();
    env = {
      ...standinEnv(standin),
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: fresh.dataDir,
      ...(fresh.url ? { DATABASE_URL: fresh.url } : {}),
      WORKER: 'inline',
      LOG_LEVEL: 'warn',
      SIGNUP_RATE_LIMIT: '0',
      SHUTDOWN_TIMEOUT_MS: '4000',
    };
  }, 240_000);
  afterAll(async () => {
    await standin?.close();
    await fresh?.cleanup();
  });

  it('a port taken when it listens is one line on stderr and exit code 1', { timeout: 60_000 }, async () => {
    const { port, server } = await busyPort();
    try {
      const result = await run('node', [entry], { ...env, PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`port ${port} is already in use (set PORT)\n`);
    } finally {
      server.close();
    }
  });

  it('SIGTERM answers the request in flight, hands the running Operation back to the queue, and exits 0', { timeout: 120_000 }, async () => {
    const server = await start('node', [entry], env);
    const api = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json: any = await res.json();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const signup = await api('POST', '/site-api/v1/users', {
      email: 'drain@example.com',
      password: 'correct-horse-9',
      website_name: 'Drain',
      default_language: 'en',
      captcha_token: 'dev-captcha',
    });
    const { token } = await api('POST', `${TENANT}/users:exchange_handoff`, { signup_token: signup.signup_token });
    const account = `${TENANT}/accounts/${signup.account_id}`;
    const instruction = await api('POST', `${account}/ai_instructions`, { display_name: 'Writer', variables: [], content: 'Write.' }, token);
    const agent = await api('POST', `${account}/ai_agents`, { display_name: 'Slow', instruction_id: instruction.id, preferred_model_id: 'gpt-5' }, token);
    // The provider never answers while this server runs: the run's handler sits in that call, lease held.
    standin.script('openai', { delayMs: 600_000 });
    const execution = await api('POST', `${account}/ai_executions`, { agent_id: agent.id }, token);
    for (let i = 0; i < 500 && standin.runs('openai').length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(standin.runs('openai')).toHaveLength(1);

    // A request in flight: headers sent and read (the server's `100 Continue` says so), body not yet.
    const body = JSON.stringify({ display_name: 'Sent during shutdown' });
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.write(
      `POST ${account}/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    for (let i = 0; i < 500 && !answer.includes('100 Continue'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(answer).toContain('HTTP/1.1 100 Continue');

    server.child.kill('SIGTERM');
    // Draining: the listener is closed, so new connections are refused ...
    for (let i = 0; i < 500 && (await connects(server.baseUrl)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await connects(server.baseUrl)).toBe(false);
    // ... while the request in flight is still served.
    socket.write(body);
    await closed;
    const [head, payload] = answer.split('\r\n\r\n').slice(-2);
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(payload)).toMatchObject({ display_name: 'Sent during shutdown' });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toBe('');

    // The Operation is back in the queue, its attempt not counted: no lease to wait out.
    const operation = await fresh.database.db.selectFrom('operations').selectAll().where('type', '=', AI_EXECUTION).executeTakeFirstOrThrow();
    expect(operation).toMatchObject({ state: 'QUEUED', lease_owner: null });
    expect(Number(operation.attempt)).toBe(0);

    // Another worker takes it at once and finishes the run.
    const other = await buildApp({ config: loadConfig(env), database: fresh.database });
    try {
      standin.reset();
      standin.script('openai', { text: 'finished by the next worker' });
      expect(await other.operations.runOne()).toBe(true);
      const run = await other.app.inject({ method: 'GET', url: `${TENANT}/${execution.name}`, headers: { authorization: `Bearer ${token}` } });
      const finished = run.json();
      expect(finished.state).toBe('SUCCEEDED');
      // The attempt the stopped server had open is closed as such; the next one succeeded.
      expect(finished.attempts.map((a: any) => a.error_code ?? 'OK')).toEqual(['UNAVAILABLE', 'OK']);
      expect(finished.attempts[0].message).toMatch(/worker .*stopped/);
    } finally {
      await other.app.close();
    }
  });
});

/** Whether a new TCP connection to the server is accepted. */
function connects(baseUrl: string): Promise<boolean> {
  return new Promise((done) => {
    const socket: Socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}
