import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every test file runs twice: once against SQLite, once against PostgreSQL (see test/support/databases.ts).
const include = ['test/**/*.test.ts'];

export default defineConfig({
  // Tests import the SDK from its sources (as the admin does), not from sdk/dist, which a fresh clone
  // has not built; test/sdk/built-package.test.ts covers the built package.
  resolve: { alias: [{ find: /^@siteplatform\/sdk$/, replacement: fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) }] },
  test: {
    // Child processes rather than worker threads: better-sqlite3 and argon2 are native addons.
    pool: 'forks',
    // Generous: argon2 hashing and starting real servers are slow on small CI machines.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    reporters: ['default', './test/support/reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include,
          env: { TEST_DIALECT: 'sqlite' },
          // Per-run temp dir for the test databases' dirs, removed at the end.
          globalSetup: ['./test/support/temp-root.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include,
          env: { TEST_DIALECT: 'postgres' },
          // temp-root as above; global-setup starts (or connects to) PostgreSQL and builds the migrated template.
          globalSetup: ['./test/support/temp-root.ts', './test/support/global-setup.ts'],
          // Skips every file, listing its tests as skipped, when global setup found no server.
          runner: './test/support/postgres-runner.ts',
        },
      },
    ],
  },
});
