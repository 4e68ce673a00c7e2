/**
 * The boundaries of docs/architecture.md ("Boundaries", issue 30), checked on the sources without a
 * database: scripts/architecture-measures.mjs parses src/ (oxc-parser) and this file holds its
 * findings to the rules. Run `npm run measure:architecture -- --list` to see every offending line.
 *
 * KNOWN lists what was already there when a rule was introduced. They may only shrink: a new
 * offender fails the test (naming file and line); an entry that is fixed is reported, and should be
 * deleted from its list. The goal is empty lists.
 */
import { describe, expect, it } from 'vitest';
import { analyseSources, MAX_LINES, offenderCounts, type MeasureItem } from '../../scripts/architecture-measures.mjs';

/** Offender key → how many times it may occur (an import `file -> target`, a file, an import edge `a -> b` of a cycle). */
const KNOWN: Record<string, Record<string, number>> = {
  // Imports into another area's folder that do not name its index.ts (rule 4 of the plan).
  pastSurface: {},
  // Imports from src/platform/** into a folder outside the platform: none may be added.
  platformImportsArea: {},
  // Import edges between folders that lie on a cycle (one loop through platform/ subfolders, ai <-> ai-billing).
  folderCycles: {},
  // Import edges between files of one folder that lie on a cycle.
  fileCycles: {},
  // Source files over MAX_LINES lines.
  longFiles: {},
  // SQL statements in area code naming another area's table (TABLE_OWNERS), per file.
  crossArea: {},
  // Lines of area code typed with the query builder over any (or the engine's dynamic()), per file.
  // content.repo.ts: the content resolution cms and blog share runs over the table its caller names.
  qbAnyArea: {
    "src/cms/content.repo.ts": 1,
  },
  // Lines of area code with Record<string, any>, per file.
  recordAnyArea: {},
  // SQL statements in area code outside *.repo.ts (declaration files, services, site renderers, ...).
  sqlOutsideRepo: {},
};

const analysis = analyseSources();

/** The items of measure `key` whose offender key is new or occurs more often than KNOWN allows. */
function check(key: string): { added: string[]; remaining: number } {
  const now = offenderCounts(analysis, key);
  const known = KNOWN[key] ?? {};
  const grown = new Set(Object.keys(now).filter((k) => now[k] > (known[k] ?? 0)));
  const items = analysis.measures.find((m) => m.key === key)!.items;
  const where = (it: MeasureItem) => (it.file ? `${it.file}:${it.line}: ${it.text}` : it.text);
  // A key may occur a known number of times (SQL statements of a file): say how many now and then.
  const added: string[] = [...grown].filter((k) => known[k]).map((k) => `${k}: ${now[k]} now, ${known[k]} known; its lines:`);
  for (const it of items) {
    const keys = it.edges ?? [it.key ?? it.text];
    for (const k of keys.filter((x) => grown.has(x))) {
      if (it.sites) added.push(`${k} (cycle ${it.text})`);
      else added.push(`${where(it)}${keys.length > 1 || k !== it.file ? `  [${k}]` : ''}`);
    }
  }
  const fixed = Object.keys(known).filter((k) => (now[k] ?? 0) < known[k]);
  const remaining = Object.values(now).reduce((a, b) => a + b, 0);
  console.info(
    `architecture ${key}: ${remaining} known offender(s) remain` +
      (fixed.length ? `; fixed, delete from KNOWN.${key}: ${fixed.map((f) => JSON.stringify(f)).join(', ')}` : ''),
  );
  return { added, remaining };
}

describe('architecture', () => {
  it('parses every source file and knows the owning area of every table', () => {
    const count = (key: string) => analysis.measures.find((m) => m.key === key)!.items.map((i) => i.file ?? i.text);
    expect(count('parseErrors'), 'files the parser refuses').toEqual([]);
    expect(count('unmapped'), 'tables missing from TABLE_OWNERS in scripts/architecture-measures.mjs').toEqual([]);
  });

  it('imports another area only through its index.ts, and the platform imports no area', () => {
    expect(check('pastSurface').added, "import through the area's index.ts (export what you need from there)").toEqual([]);
    expect(check('platformImportsArea').added, 'the platform may not import an area: move the shared piece down into src/platform').toEqual([]);
  });

  it('has no import cycle between folders nor between the files of one folder', () => {
    expect(check('folderCycles').added, 'a new import closes a cycle between folders').toEqual([]);
    expect(check('fileCycles').added, 'a new import closes a cycle between files of one folder').toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    expect(check('longFiles').added, 'split the file by reason to change').toEqual([]);
  });

  it('runs SQL in area code only inside *.repo.ts', () => {
    expect(check('sqlOutsideRepo').added, "move the statement into the area's *.repo.ts").toEqual([]);
  });

  it("reads and writes only its own area's tables", () => {
    expect(check('crossArea').added, "call a function the owning area's index.ts exports").toEqual([]);
  });

  it('types area code with the generated schema (no query builder over any, no Record<string, any> rows)', () => {
    expect(check('qbAnyArea').added, 'use Db / Trx and the generated row types of platform/db/schema.ts').toEqual([]);
    expect(check('recordAnyArea').added, 'use the generated row types of platform/db/schema.ts').toEqual([]);
  });

  it('casts to any or never at most 10 times in src/', () => {
    const casts = analysis.measures.find((m) => m.key === 'casts')!;
    expect(casts.count, casts.items.map((i) => `${i.file}:${i.line}: ${i.text}`).join('\n')).toBeLessThanOrEqual(10);
  });
});
