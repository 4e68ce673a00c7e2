/**
 * Test runner of the `postgres` project. When global setup found no PostgreSQL server, every test of every file
 * is collected as skipped, so it is reported as skipped and none of the file's hooks (freshDatabase in
 * beforeAll, ...) run — test files need no PostgreSQL-specific boilerplate for that case.
 */
import { inject, TestRunner } from 'vitest';
import './provided-context.js';

/** Matches no test name: vitest marks every test it does not match as skipped while collecting. */
const MATCHES_NOTHING = /(?!)/;

/** Default vitest runner that skips all tests while PostgreSQL is unavailable. */
export default class PostgresProjectRunner extends TestRunner {
  constructor(config: ConstructorParameters<typeof TestRunner>[0]) {
    super(config);
    const postgres = inject('postgres');
    // Skipping at collection (rather than at run time) is what makes vitest report the tests as skipped
    // everywhere: the collected tree it sends to the reporters already says so.
    if (postgres && !postgres.available) this.config.testNamePattern = MATCHES_NOTHING;
  }
}
