/**
 * The areas' benchmark suites. `bench/run.ts` runs the foundation cases and then every suite listed
 * here on the same server, per dialect; `BENCH_SUITES=foundation,media` selects some (default: all).
 * A suite adds rows to the report (with `measure` for autocannon cases, or rows it times itself)
 * and names its targets, which are reported, never asserted.
 */
import type { Api } from './api.js';
import { contentSuite } from './content.js';
import { mediaSuite } from './media.js';
import { configSuite } from './config.suite.js';
import type { CaseRow, DialectReport, Target } from './report.js';
import { customersSuite } from './customers.js';
import { aiSuite } from './ai.js';
import { listsSuite } from './lists.js';
import { blogSuite } from './blog.js';
import { accessSuite } from './access.js';
import { siteSuite } from './site.js';
import { editorialSuite } from './editorial.js';
import { searchSuite } from './search.js';
import { analyticsIngestSuite } from './analytics-ingest.js';
import { analyticsQuerySuite } from './analytics-query.js';
import { costSuite } from './cost.js';
import { limitsSuite } from './limits.js';
import { eventsSuite } from './events.js';
import { webhooksSuite } from './webhooks.js';

export interface MeasureOptions {
  auth?: boolean;
  /** Bearer token of another user (default: the signed-up user's). */
  token?: string;
  connections?: number;
  target?: Target;
  notes?: string[];
  /** Seconds of the autocannon run (default: the run's per-case duration). */
  durationS?: number;
  /** Most sequential probes before the run (default 10, and at least 3 within about 5 s). */
  probes?: number;
}

export interface SuiteContext {
  dialect: 'sqlite' | 'postgres';
  /** Base URL of the running server. */
  base: string;
  /** Bearer token of the signed-up user. */
  token: string;
  user: { accountId: string; websiteId: string; token: string; operation: string };
  api: Api;
  report: DialectReport;
  /** An autocannon GET case with sequential probes first (see run.ts). */
  measure(id: string, label: string, url: string, opts?: MeasureOptions): Promise<CaseRow>;
  log(message: string): void;
  dataDir: string;
  /** The server's SQLite file (sqlite dialect). */
  sqliteFile: string;
  /** The server's database (postgres dialect). */
  databaseUrl?: string;
  quick: boolean;
  durationS: number;
  connections: number;
  /**
   * Restarts the server (after seeding straight into the database, so the process measured loads
   * the new planner statistics); `base` and `api` point at the new process afterwards.
   */
  restart(): Promise<void>;
  /** Process id of the running server (for /proc readings: bench/cpu.ts). */
  serverPid(): number;
}

export interface BenchSuite {
  id: string;
  /** One line per target, for the report's target list. */
  targets: string[];
  /** Lines for the report's setup section: how the suite seeds and measures. */
  setup?: string[];
  run(ctx: SuiteContext): Promise<void>;
}

// Cost first: it restarts the server and measures idle memory before other suites seed.
// Lists last: it seeds a tenant of its own with many tables of 100 000 rows, after the other suites measured.
export const SUITES: readonly BenchSuite[] = [costSuite, customersSuite, mediaSuite, configSuite, contentSuite, aiSuite, blogSuite, editorialSuite, accessSuite, siteSuite, searchSuite, analyticsIngestSuite, analyticsQuerySuite, limitsSuite, eventsSuite, webhooksSuite, listsSuite];

const selected = (process.env.BENCH_SUITES ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/** Whether a suite (or `foundation`, the cases in run.ts) runs in this invocation. */
export function suiteSelected(id: string): boolean {
  return selected.length === 0 || selected.includes(id);
}
