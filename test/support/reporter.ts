/**
 * Vitest reporter that runs alongside the default one and ends the output with the line CI judges the run by:
 *   tests: N passed, N failed, N skipped
 * counted over the test cases of every project (sqlite and postgres).
 */
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';
import { postgresSkippedBanner, SKIPPED_ENV } from './provided-context.js';

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

/** Prints per-project counts, the PostgreSQL-skipped banner when it applies, then the final totals line. */
export default class TotalsReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const total: Totals = { passed: 0, failed: 0, skipped: 0 };
    const byProject = new Map<string, Totals>();
    // Failures outside any test case (file that does not import, failing beforeAll/afterAll) leave no failed
    // test behind, yet must not let the totals line read as a clean run.
    let failedOutsideTests = 0;

    for (const module of testModules) {
      const project = module.project.name || '(default)';
      const counts = byProject.get(project) ?? { passed: 0, failed: 0, skipped: 0 };
      byProject.set(project, counts);
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        // 'pending' = never ran: a skip vitest did not propagate (describe.skip nested in a skipped describe) or an
        // interrupted run; the latter also ends the run as not 'passed', which is counted below.
        const key = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        counts[key]++;
        total[key]++;
        if (key === 'failed') failedHere++;
      }
      const suiteErrors = [...module.children.allSuites()].some((suite) => suite.errors().length > 0);
      if (failedHere === 0 && (module.state() === 'failed' || module.errors().length > 0 || suiteErrors)) {
        failedOutsideTests++;
        counts.failed++;
      }
    }
    total.failed += failedOutsideTests + unhandledErrors.length;
    // Vitest can fail a run with no test or file to blame (global setup threw, run interrupted): the totals line
    // must still read as a failure.
    const failedOtherwise = reason !== 'passed' && total.failed === 0 ? 1 : 0;
    total.failed += failedOtherwise;

    const lines: string[] = [''];
    for (const [project, c] of [...byProject].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`project ${project}: passed=${c.passed} failed=${c.failed} skipped=${c.skipped}`);
    }
    if (failedOutsideTests || unhandledErrors.length) {
      lines.push(
        `(failed includes ${failedOutsideTests} test file(s) that failed outside a test and ${unhandledErrors.length} unhandled error(s))`,
      );
    }
    if (failedOtherwise) lines.push(`(failed includes 1 for a run that ended as '${reason}' without a failed test; see the error report)`);
    const skippedReason = process.env[SKIPPED_ENV];
    if (skippedReason) lines.push(postgresSkippedBanner(skippedReason));
    lines.push(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
    process.stdout.write(lines.join('\n') + '\n');
  }
}
