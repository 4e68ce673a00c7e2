/**
 * The platform as a child process, exactly as operators run it (`node dist/src/main.js`): start it on a
 * free loopback port, wait for its ready line, stop it with SIGTERM (SIGKILL after a timeout).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerHandle {
  /** e.g. `http://127.0.0.1:40123` */
  baseUrl: string;
  pid: number;
  /** Last lines the server wrote (stdout and stderr), for error reports. */
  logTail(): string;
  /** Lines at pino level warn (40) or above the server logged since it started. */
  problemLines(): string[];
  stop(): Promise<void>;
}

const READY = /listening on (http:\/\/\S+)/;
const TAIL_LINES = 200;
const PROBLEMS_KEPT = 50;

/** Variables of the caller's environment that would change what the bench measures; the child never inherits them. */
const SCRUBBED = [
  'NODE_ENV',
  'DATABASE_URL',
  'PUBLIC_BASE_URL',
  'SIGNUP_BASE_URL',
  'HOST',
  'PORT',
  'DATA_DIR',
  'WORKER',
  'LOG_LEVEL',
  'SIGNUP_RATE_LIMIT',
  'JWT_SECRET',
  'ENCRYPTION_KEY',
  'CAPTCHA_PROVIDER',
  'CAPTCHA_SECRET',
  'TRUST_PROXY',
  'MEDIA_COLD_TRANSFORMS_PER_MINUTE',
  'MEDIA_AVIF_EFFORT',
];

export async function startServer(opts: {
  mainJs: string;
  cwd: string;
  env: Record<string, string>;
  /** Node options before the script (e.g. `--cpu-prof`); BENCH_SERVER_NODE_ARGS adds more (space-separated). */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}): Promise<ServerHandle> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  // Per-address limits off: every bench request comes from one address (the media suite makes
  // 100+ cold variants in a burst), and the bench measures the work, not the limiter.
  Object.assign(env, { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', WORKER: 'inline', SIGNUP_RATE_LIMIT: '0', MEDIA_COLD_TRANSFORMS_PER_MINUTE: '0' }, opts.env);

  const nodeArgs = [...(opts.nodeArgs ?? []), ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, opts.mainJs], { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const problems: string[] = [];
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  let onLine: ((line: string) => void) | undefined;
  const feed = (stream: NodeJS.ReadableStream | null) => {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        if (/"level":\s*(4|5|6)0/.test(line) && problems.length < PROBLEMS_KEPT) problems.push(line);
        onLine?.(line);
      }
    });
  };
  feed(child.stdout);
  feed(child.stderr);

  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    const graceful = await Promise.race([exitPromise.then(() => true), delay(15_000).then(() => false)]);
    if (!graceful && !exited) {
      child.kill('SIGKILL');
      await Promise.race([exitPromise, delay(5_000)]);
    }
  };

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print its ready line within ${opts.readyTimeoutMs ?? 120_000} ms\n${tail.join('\n')}`)), opts.readyTimeoutMs ?? 120_000);
    onLine = (line) => {
      const m = READY.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    };
    exitPromise.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready\n${tail.join('\n')}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  onLine = undefined;

  return {
    baseUrl,
    pid: child.pid ?? -1,
    logTail: () => tail.slice(-40).join('\n'),
    problemLines: () => [...problems],
    stop,
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
