/**
 * A throwaway PostgreSQL server for the test suite: find the binaries, initdb into a temp dir,
 * start on a free loopback port, stop and delete afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where initdb and pg_ctl were found. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/** A started server; `stop` is idempotent. */
export interface RunningPostgres {
  /** Superuser URL of the `postgres` maintenance database. */
  url: string;
  /** Temp dir holding the cluster, socket and log. */
  dir: string;
  stop(): Promise<void>;
  /** Last-resort synchronous stop for process-exit hooks. */
  stopSync(): void;
}

/** Prefix of the temp dirs; also how abandoned servers of killed runs are recognised. */
const DIR_PREFIX = 'vitest-pg-';
const SERVER_USER = 'postgres';

/**
 * Finds initdb + pg_ctl: only in TEST_PG_BINDIR when that is set (pick a version, or simulate none),
 * else /usr/lib/postgresql/<highest version>/bin first, then PATH.
 */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  const candidates: string[] = [];
  const debianRoot = '/usr/lib/postgresql';
  if (process.env.TEST_PG_BINDIR) {
    candidates.push(process.env.TEST_PG_BINDIR);
  } else if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot).sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    for (const version of versions) candidates.push(join(debianRoot, version, 'bin'));
  }
  if (!process.env.TEST_PG_BINDIR) candidates.push(...(process.env.PATH ?? '').split(delimiter).filter(Boolean));
  for (const dir of candidates) {
    const initdb = join(dir, 'initdb');
    const pgCtl = join(dir, 'pg_ctl');
    if (existsSync(initdb) && existsSync(pgCtl)) return { initdb, pgCtl };
  }
  return undefined;
}

interface ServerUser {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root, so as root we run it as the `postgres` user. */
function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${SERVER_USER}:`));
  if (!line) throw new Error(`running as root and there is no '${SERVER_USER}' user to run PostgreSQL as`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** The argv that runs `file args` as the server user when we are root (runuser, else su). */
function asServerUser(user: ServerUser | undefined, file: string, args: string[]): [string, string[]] {
  if (!user) return [file, args];
  if (hasCommand('runuser')) return ['runuser', ['-u', SERVER_USER, '--', file, ...args]];
  return ['su', [SERVER_USER, '-s', '/bin/sh', '-c', [file, ...args].map(shellQuote).join(' ')]];
}

/** Runs a command to completion; rejects with its output when it fails. */
function run(argv: [string, string[]], cwd: string, timeoutMs: number): Promise<string> {
  const [file, args] = argv;
  return new Promise((resolve, reject) => {
    // stdin ignored: pg_ctl must not wait on a terminal; the postmaster's own output goes to the log file (-l),
    // so it does not hold our pipes open after pg_ctl exits.
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${[file, ...args].join(' ')} failed (${signal ?? `exit ${code}`}): ${output.trim()}`));
    });
  });
}

/** A port nobody listens on right now (bind to 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and deletes servers left behind by runs that were killed before their teardown
 * (each temp dir records the pid of the vitest process that owns it).
 */
function reclaimAbandonedServers(binaries: PostgresBinaries, user: ServerUser | undefined): void {
  for (const entry of readdirSync(tmpdir())) {
    if (!entry.startsWith(DIR_PREFIX)) continue;
    const dir = join(tmpdir(), entry);
    try {
      const owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
      if (owner && processAlive(owner)) continue;
      const dataDir = join(dir, 'data');
      if (existsSync(join(dataDir, 'postmaster.pid'))) {
        const [file, args] = asServerUser(user, binaries.pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
        spawnSync(file, args, { cwd: tmpdir(), stdio: 'ignore', timeout: 30_000 });
      }
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not ours to judge (unreadable, half-deleted, another user's): leave it.
    }
  }
}

/** Creates a cluster in a new temp dir and starts it on a free 127.0.0.1 port, tuned for speed over durability. */
export async function startThrowawayPostgres(binaries: PostgresBinaries): Promise<RunningPostgres> {
  const user = serverUser();
  reclaimAbandonedServers(binaries, user);

  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  if (user) chownSync(dir, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });

  try {
    await run(
      asServerUser(user, binaries.initdb, [
        '-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C', '--no-instructions',
      ]),
      dir,
      120_000,
    );
    // Durability is worthless for a throwaway cluster; autovacuum is off so nothing ever connects to the
    // template database behind our back (CREATE DATABASE ... TEMPLATE fails while anyone is connected).
    appendFileSync(
      join(dataDir, 'postgresql.conf'),
      [
        '',
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir.replace(/'/g, "''")}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 300',
        'autovacuum = off',
        '',
      ].join('\n'),
    );
  } catch (error) {
    removeDir();
    throw error;
  }

  let stopped = false;
  const stopArgs = (mode: 'fast' | 'immediate') => asServerUser(user, binaries.pgCtl, ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    const [file, args] = stopArgs('immediate');
    spawnSync(file, args, { cwd: dir, stdio: 'ignore', timeout: 30_000 });
    removeDir();
  };

  // The port is free when probed but may be taken before the server binds it; a couple of retries cover that race.
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    try {
      await run(
        asServerUser(user, binaries.pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port}`, 'start']),
        dir,
        90_000,
      );
    } catch (error) {
      lastError = new Error(`${(error as Error).message}\n--- server log ---\n${readLog(logFile)}`);
      continue;
    }
    // A vitest process that exits without running teardown (crash, process.exit) must not leave a server behind.
    process.once('exit', stopSync);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      dir,
      stopSync,
      async stop() {
        if (stopped) return;
        process.removeListener('exit', stopSync);
        try {
          await run(stopArgs('fast'), dir, 60_000);
          stopped = true;
          removeDir();
        } catch {
          stopSync();
        }
      },
    };
  }
  removeDir();
  throw lastError;
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}
