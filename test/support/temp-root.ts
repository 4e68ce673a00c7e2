/**
 * Global setup of both projects: one temp dir per run and project under which freshDatabase puts its dirs,
 * removed at the end, so dirs of test files that never reached their cleanup (a failing beforeAll) do not pile up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import './provided-context.js';

/** Vitest global setup providing `tempRoot`; the returned function deletes it. */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), `vitest-${project.name || 'tests'}-`));
  project.provide('tempRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}
