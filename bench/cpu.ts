/**
 * CPU time and memory of the processes under measurement, read from /proc (Linux): the server
 * process (every thread, SQLite reader threads included) and, on PostgreSQL, the backends serving
 * its database. CPU per request is the CPU they spent during a run divided by the responses of the
 * run, so it does not depend on how fast the load generator is or on what else the machine runs
 * (the ratio of two req/s figures does: see docs/performance.md, "request cost").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';

// Kernel clock ticks per second (USER_HZ): 100 on every Linux this runs on, asked anyway.
const TICK_MS = (() => {
  try {
    return 1000 / (Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100);
  } catch {
    return 10;
  }
})();

/** utime + stime of `pid` in ms; undefined when it is gone or /proc is missing. */
export function cpuMs(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** A /proc/<pid>/status figure in MB (VmRSS, VmHWM, RssAnon…); undefined when unreadable. */
export function statusMb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets VmHWM (peak RSS) of `pid` to its current RSS (`clear_refs` 5); false when not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The PostgreSQL backends serving `databaseUrl`'s database (other than the asking one). */
export async function postgresBackends(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((r) => Number(r.pid));
  } finally {
    await client.end();
  }
}

export interface CpuSample {
  server: number;
  backends: number;
  /** This (load-generating) process. */
  client: number;
}

/** A reading to subtract from a later one. */
export async function sampleCpu(serverPid: number, backendPids: readonly number[]): Promise<CpuSample> {
  const own = process.cpuUsage();
  return {
    server: cpuMs(serverPid) ?? NaN,
    backends: backendPids.reduce((sum, pid) => sum + (cpuMs(pid) ?? 0), 0),
    client: (own.user + own.system) / 1000,
  };
}

/** µs of CPU per response between two samples. */
export function perRequestUs(before: CpuSample, after: CpuSample, responses: number): CpuSample {
  const per = (a: number, b: number) => (responses > 0 ? ((b - a) * 1000) / responses : NaN);
  return { server: per(before.server, after.server), backends: per(before.backends, after.backends), client: per(before.client, after.client) };
}
