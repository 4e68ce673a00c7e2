/**
 * What global setup hands to test workers (through vitest `provide`/`inject`).
 * Kept in its own module so global setup, the runner, the reporter and the helpers agree on one shape.
 */

/** PostgreSQL as the test workers see it: a server with a migrated template database, or the reason there is none. */
export type PostgresContext =
  | {
      available: true;
      /** Connection URL of a maintenance database (CREATE/DROP DATABASE run there). */
      adminUrl: string;
      /** Database migrated once at suite start; every test file clones it. */
      templateName: string;
      /** Prefix of every database this run creates, so teardown can find leftovers. */
      databasePrefix: string;
    }
  | { available: false; reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the postgres project's global setup only. */
    postgres: PostgresContext;
    /** Per-run, per-project temp dir (temp-root.ts) holding every freshDatabase dir; deleted at the end of the run. */
    tempRoot: string;
  }
}

/** The loud line printed whenever the PostgreSQL half of the suite does not run. */
export function postgresSkippedBanner(reason: string): string {
  return `!!! PostgreSQL tests SKIPPED: ${reason} !!!`;
}

/** Environment variable through which global setup tells the reporter (same process) that PostgreSQL was skipped. */
export const SKIPPED_ENV = 'TEST_POSTGRES_SKIPPED_REASON';
