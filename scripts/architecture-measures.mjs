// Re-measures issue 30's table ("Code that stays easy to change") on the working tree.
//
//   npm run measure:architecture            the table: measure, count, target
//   npm run measure:architecture -- --list  and every offending line (path:line: text)
//   npm run measure:architecture -- --list sqlOutsideRepo crossArea   only those measures (keys below)
//   npm run measure:architecture -- --offenders   offenders as JSON (the architecture test's lists)
//
// test/infra/architecture.test.ts imports analyseSources() from here, so the script and the test
// count the same things. Sources are parsed with oxc-parser (a full TypeScript parser); comments
// never count.
//
// Definitions
// - Folder: a top-level folder of src/ (src/blog, src/ai-billing, ...), except that each subfolder of
//   src/platform is a folder of its own (platform/db, platform/resource, ...). Files directly in src/
//   (app.ts, areas.ts, config.ts, *-main.ts) and directly in src/platform (area.ts, errors.ts,
//   cache.ts, ...) are not a folder: each is a node of its own, named by its path
//   ("src/config.ts", "src/platform/errors.ts").
// - Area code: every .ts file under src/ except src/platform/** and src/migrations/** (the
//   composition roots directly in src/ included).
// - Query-builder types over any: a line with a Kysely type whose first type argument is `any`
//   (`Kysely<any>`, `Transaction<any>`, `SelectQueryBuilder<any, …>`, `ExpressionBuilder<any, …>`,
//   `QueryResult<any>`, …; the full list is QB_TYPES), and in area code also a use of the engine's
//   untyped escape (`DynamicDb`, `dynamic(db)`, platform/db/dynamic.ts). Counted separately in area code (target 0)
//   and in src/platform (the engine may stay generic where it must: no target). `Record<string, any>`
//   lines in area code are counted on their own line of the table (plan rule 1: rows use the
//   generated row types).
// - Casts: `as any` and `as never` expressions anywhere in src/ (migrations included).
// - SQL statement: the innermost statement, variable declarator, object property or arrow-function
//   expression body that contains a SQL call: a call of `.selectFrom/.insertInto/.updateTable/
//   .deleteFrom/.replaceInto/.mergeInto/.selectNoFrom/.executeQuery(…)`, `CompiledQuery.raw(…)`, a
//   `sql` template (`sql\`…\``, `sql<T>\`…\``) or a `sql.raw/ref/table/id/lit/val/join(…)` call.
//   Counted in area code: inside `*.resource.ts` declaration files, and anywhere outside `*.repo.ts`
//   files (the first is part of the second). Platform is the shared layer whose modules are their own
//   repositories (the engine, events, jobs, mail, ...), so its statements are reported for
//   information only (platform files outside `*.repo.ts`), with no target. src/migrations is schema
//   DDL and never counted.
// - Cross-area table access: a SQL statement in one area's files that names a table owned by another
//   area (TABLE_OWNERS below is the authoritative ownership map; an owner "platform/x" is the platform
//   module that owns it). A statement names a table when it passes the table as a string literal to
//   selectFrom/insertInto/updateTable/deleteFrom/replaceInto/mergeInto/*Join/using (`'blog_posts'`,
//   `'blog_posts as p'`), qualifies a column with it (`'blog_posts.id'`), names it in a `sql` template
//   after FROM/JOIN/INTO/UPDATE/TABLE/EXISTS or as a `table.column` qualifier, or passes it to
//   sql.table/sql.ref/sql.id. Tables passed as variables (the engine's generic statements over a
//   declaration's own table) are not seen, by design. Area code counts (target 0); platform files
//   naming an area's table are listed for information. A table missing from the map is a measure
//   of its own (target 0), read from src/platform/db/schema.ts's `interface DB`.
// - Import: `import … from`, `export … from`, `import('…')` expressions and `import('…').T` types,
//   type-only ones included (a type import ties the folders as much for a reader), of a relative
//   specifier resolved to a file under src/.
// - Folder cycle: a strongly connected component of more than one folder in the graph of imports
//   between folders; the count is the number of such components (one loop of twelve folders counts
//   once). File cycles inside one folder are counted the same way over files.
// - Past a public surface (plan rule 4): an import from one folder into an area folder (any folder
//   of src/ but platform and its subfolders) that does not name that folder's index.ts; and any
//   import from src/platform/** into a file outside src/platform except PLATFORM_MAY_IMPORT
//   (src/config.ts, and the schema's migration list that platform/db runs: neither is an area).
// - Long file: a .ts file under src/ with more than 600 lines, generated files (GENERATED: the typed
//   database's schema.ts) excepted.
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseSync } from 'oxc-parser';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MAX_LINES = 600;
/** Files outside src/platform that platform may import: no area, nothing that imports an area. */
export const PLATFORM_MAY_IMPORT = new Set(['src/config.ts', 'src/migrations/index.ts']);
/** Generated files, which nobody edits by hand: not counted as long files. */
export const GENERATED = new Set(['src/platform/db/schema.ts']);

/** Table → owning area (folder name under src/, or platform/<module>). Authoritative (plan rule 3). */
export const TABLE_OWNERS = {
  // access: who may do what in an account
  memberships: 'access',
  invitations: 'access',
  account_roles: 'access',
  // users: people and their sign-in
  users: 'users',
  user_profiles: 'users',
  user_sessions: 'users',
  user_tokens: 'users',
  accounts: 'accounts',
  projects: 'projects',
  signup_handoffs: 'signup',
  operations: 'operations',
  websites: 'websites',
  site_versions: 'site',
  views: 'views',
  themes: 'theme',
  settings: 'settings',
  custom_domains: 'custom-domain',
  dashboards: 'dashboard',
  email_templates: 'email-templates',
  media: 'media',
  media_folders: 'media',
  ai_billing: 'ai-billing',
  ai_ledger_entries: 'ai-billing',
  ai_usage_records: 'ai-billing',
  // platform modules
  idempotency_keys: 'platform/resource',
  list_counts: 'platform/resource',
  list_versions: 'platform/resource',
  cache_versions: 'platform',
  limit_counters: 'platform/limits',
  mail_messages: 'platform/mail',
  events: 'platform/events',
  account_events: 'platform/events',
};
/** Prefix → owning area, for the tables TABLE_OWNERS does not name. */
export const TABLE_PREFIX_OWNERS = [
  ['cms_', 'cms'],
  ['blog_', 'blog'],
  ['navigation_', 'navigation'],
  ['customer', 'customers'], // customers, customer_*
  ['ai_', 'ai'],
  ['editorial_', 'editorial'],
  ['search_', 'search'],
  ['analytics_', 'analytics'],
  ['webhook', 'webhooks'], // webhooks, webhook_deliveries
];

/** Owner of a table, or undefined when the map does not know it. */
export function ownerOf(table) {
  if (Object.hasOwn(TABLE_OWNERS, table)) return TABLE_OWNERS[table];
  for (const [prefix, owner] of TABLE_PREFIX_OWNERS) if (table.startsWith(prefix)) return owner;
  return undefined;
}

const QB_TYPES = [
  'Kysely', 'Transaction', 'ControlledTransaction', 'QueryCreator', 'SelectQueryBuilder', 'InsertQueryBuilder',
  'UpdateQueryBuilder', 'DeleteQueryBuilder', 'ExpressionBuilder', 'ExpressionWrapper', 'Expression', 'RawBuilder',
  'AliasedRawBuilder', 'QueryResult', 'WhereInterface', 'OnConflictBuilder', 'CaseBuilder', 'Compilable',
  'Selectable', 'Insertable', 'Updateable', 'Selection', 'SelectExpression', 'ReferenceExpression', 'QueryExecutor',
];
const QB_ANY = new RegExp(`\\b(?:${QB_TYPES.join('|')})<\\s*any\\b`);
const RECORD_ANY = /\bRecord<\s*string\s*,\s*any\s*>/;
/** The engine's escape from the typed schema (platform/db/dynamic.ts): an area never needs it. */
const DYNAMIC = /\bDynamicDb\b|\bdynamic\(/;
const SQL_METHODS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom', 'executeQuery']);
const SQL_HELPERS = new Set(['raw', 'ref', 'table', 'id', 'lit', 'val', 'join']);
const TABLE_METHODS = new Set([
  'selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'innerJoin', 'leftJoin',
  'rightJoin', 'fullJoin', 'crossJoin', 'innerJoinLateral', 'leftJoinLateral', 'crossJoinLateral', 'using',
]);
const UNIT_TYPES = new Set(['VariableDeclarator', 'Property', 'PropertyDefinition']);

/** All .ts files under src/, as repository-relative paths with forward slashes. */
export function sourceFiles(root = ROOT) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts')) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(join(root, 'src'));
  return out;
}

/** The folder node of a file (see Definitions). */
export function folderOf(file) {
  const parts = file.split('/'); // src/<a>/<b>/…
  if (parts.length === 2) return `src/${parts[1]}`;
  if (parts[1] === 'platform') return parts.length === 3 ? `src/platform/${parts[2]}` : `platform/${parts[2]}`;
  return parts[1];
}
const isPlatform = (folder) => folder.startsWith('platform/') || folder.startsWith('src/platform/');
const isRootFile = (folder) => folder.startsWith('src/') && !folder.startsWith('src/platform/');
/** The area a file belongs to for table ownership: its top-level folder; platform/<module> in platform. */
const areaOf = (file) => folderOf(file);
const isAreaCode = (file) => !file.startsWith('src/platform/') && !file.startsWith('src/migrations/');

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}
function lineOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function resolveImport(root, fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(root, dirname(fromFile), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) {
      const rel = relative(root, c).split(sep).join('/');
      return rel.startsWith('src/') ? rel : undefined;
    }
  }
  return undefined;
}

const memberName = (callee) =>
  callee?.type === 'MemberExpression' && !callee.computed && callee.property?.type === 'Identifier' ? callee.property.name : undefined;

function isSqlCall(node) {
  if (node.type === 'TaggedTemplateExpression') return node.tag?.type === 'Identifier' && node.tag.name === 'sql';
  if (node.type !== 'CallExpression') return false;
  const name = memberName(node.callee);
  if (!name) return false;
  if (SQL_METHODS.has(name)) return true;
  const obj = node.callee.object;
  if (obj?.type === 'Identifier' && obj.name === 'sql' && SQL_HELPERS.has(name)) return true;
  return obj?.type === 'Identifier' && obj.name === 'CompiledQuery' && name === 'raw';
}

/** String values of a literal argument: 'x', ['x', 'y'], cond ? 'x' : 'y'. */
function literalStrings(node, out = []) {
  if (!node) return out;
  if (node.type === 'Literal' && typeof node.value === 'string') out.push(node.value);
  else if (node.type === 'TemplateLiteral' && node.expressions.length === 0) out.push(node.quasis[0].value.cooked ?? '');
  else if (node.type === 'ArrayExpression') for (const e of node.elements) literalStrings(e, out);
  else if (node.type === 'ConditionalExpression') {
    literalStrings(node.consequent, out);
    literalStrings(node.alternate, out);
  } else if (node.type === 'TSAsExpression' || node.type === 'TSSatisfiesExpression') literalStrings(node.expression, out);
  return out;
}

/**
 * Depth-first walk of an oxc AST: `enter(node)` for every node with a `type`, before its children;
 * what it returns (a function) runs after them. Skips the bookkeeping keys this script adds.
 */
function walkAst(root, enter) {
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (typeof node.type !== 'string') return;
    const leave = enter(node);
    for (const key of Object.keys(node)) if (key !== 'type' && key !== 'parent' && key !== '__arrowBody') visit(node[key]);
    leave?.();
  };
  visit(root);
}

/** Tables a SQL unit names (see Definitions), as a Set. */
function tablesNamed(unit, tables) {
  const found = new Set();
  const consider = (name) => {
    if (tables.has(name)) found.add(name);
  };
  walkAst(unit, (node) => {
    if (node.type === 'CallExpression') {
      const name = memberName(node.callee);
      if (name && TABLE_METHODS.has(name)) for (const s of literalStrings(node.arguments[0])) consider(s.trim().split(/\s+/)[0]);
      const obj = node.callee?.object;
      if (name && obj?.type === 'Identifier' && obj.name === 'sql' && ['table', 'ref', 'id'].includes(name))
        for (const s of literalStrings(node.arguments[0])) consider(s.split('.')[0]);
    }
    if (node.type === 'Literal' && typeof node.value === 'string') {
      const m = /^([a-z_][a-z0-9_]*)\.[a-z_*][a-z0-9_]*(\s+as\s+\w+)?$/.exec(node.value.trim());
      if (m) consider(m[1]);
    }
    if (node.type === 'TaggedTemplateExpression' && node.tag?.type === 'Identifier' && node.tag.name === 'sql') {
      for (const q of node.quasi.quasis) {
        const text = q.value.cooked ?? q.value.raw;
        for (const m of text.matchAll(/\b(?:from|join|into|update|table|exists)\s+"?([a-z_][a-z0-9_]*)"?/gi)) consider(m[1]);
        for (const m of text.matchAll(/(?<![\w.])"?([a-z_][a-z0-9_]*)"?\.[a-z_*"]/g)) consider(m[1]);
      }
    }
  });
  return found;
}

/** Reads src/platform/db/schema.ts's `interface DB` table names (empty if the file is missing). */
export function schemaTables(root = ROOT) {
  const file = join(root, 'src/platform/db/schema.ts');
  if (!existsSync(file)) return [];
  const m = /export interface DB \{([\s\S]*?)\n\}/.exec(readFileSync(file, 'utf8'));
  return m ? [...m[1].matchAll(/^\s+"?([a-z_0-9]+)"?\??:/gm)].map((x) => x[1]) : [];
}

/** Parses one file: imports, SQL units, casts and type lines. */
function analyseFile(root, file, tables) {
  const text = readFileSync(join(root, file), 'utf8');
  const starts = lineStarts(text);
  const lines = text.split('\n');
  const parsed = parseSync(file, text, { sourceType: 'module', lang: 'ts' });
  // Lines with comments blanked, for the line-based measures.
  let code = text;
  for (const c of parsed.comments) code = code.slice(0, c.start) + code.slice(c.start, c.end).replace(/[^\n]/g, ' ') + code.slice(c.end);
  const codeLines = code.split('\n');
  const imports = [];
  const sqlUnits = new Map(); // unit start → {line, tables}
  const casts = [];
  const addImport = (spec, node) => {
    const target = resolveImport(root, file, spec);
    if (target) imports.push({ spec, target, line: lineOf(starts, node.start) });
  };
  const stack = [];
  walkAst(parsed.program, (node) => {
    const unit =
      node.type.endsWith('Statement') || node.type.endsWith('Declaration') || UNIT_TYPES.has(node.type) || node.__arrowBody;
    if (unit) stack.push(node);
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
        addImport(node.source.value, node);
        break;
      case 'ExportNamedDeclaration':
        if (node.source) addImport(node.source.value, node);
        break;
      case 'ImportExpression':
        if (node.source?.type === 'Literal' && typeof node.source.value === 'string') addImport(node.source.value, node);
        break;
      case 'TSImportType': {
        const src = node.source ?? node.argument?.literal ?? node.argument;
        if (src?.type === 'Literal' && typeof src.value === 'string') addImport(src.value, node);
        break;
      }
      case 'TSAsExpression': {
        const t = node.typeAnnotation?.type;
        if (t === 'TSAnyKeyword' || t === 'TSNeverKeyword') casts.push(lineOf(starts, node.typeAnnotation.start));
        break;
      }
      case 'ArrowFunctionExpression':
        if (node.expression && node.body && typeof node.body === 'object') node.body.__arrowBody = true;
        break;
    }
    if (isSqlCall(node)) {
      const owner = stack[stack.length - 1] ?? node;
      if (!sqlUnits.has(owner.start)) sqlUnits.set(owner.start, { line: lineOf(starts, node.start), unit: owner });
    }
    return unit ? () => stack.pop() : undefined;
  });
  const sql = [...sqlUnits.values()].map(({ line, unit }) => ({ line, tables: [...tablesNamed(unit, tables)] }));
  const lineCount = text.endsWith('\n') ? lines.length - 1 : lines.length;
  return { file, lines, codeLines, imports, sql, casts, lineCount, errors: parsed.errors.length };
}

/** Strongly connected components with more than one node (Tarjan), each sorted, as arrays. */
export function cycles(edges) {
  const nodes = new Set();
  for (const [a, bs] of edges) {
    nodes.add(a);
    for (const b of bs) nodes.add(b);
  }
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) strong(v);
  return out;
}

/**
 * Measures the tree under root. Returns {measures: [{key, name, count, target, items}]}, where each
 * item is {file, line, text} (an offending line) or {text} (a cycle, an unmapped table).
 */
export function analyseSources(root = ROOT) {
  const files = sourceFiles(root);
  const schema = schemaTables(root);
  const tables = new Set([...schema, ...Object.keys(TABLE_OWNERS)]);
  const analysed = files.map((f) => analyseFile(root, f, tables));
  const at = (a, line) => ({ file: a.file, line, text: (a.lines[line - 1] ?? '').trim() });
  const m = {
    qbAnyArea: [], qbAnyPlatform: [], recordAnyArea: [], casts: [], sqlResource: [], sqlOutsideRepo: [],
    sqlPlatform: [], crossArea: [], crossAreaPlatform: [], unmapped: [], pastSurface: [], platformImportsArea: [],
    folderCycles: [], fileCycles: [], longFiles: [], parseErrors: [],
  };
  const folderEdges = new Map();
  const folderEdgeSites = new Map(); // "a -> b" → [{file, line, text}]
  const fileEdges = new Map();
  for (const a of analysed) {
    const area = isAreaCode(a.file);
    const platform = a.file.startsWith('src/platform/');
    const repo = a.file.endsWith('.repo.ts');
    if (a.errors) m.parseErrors.push({ file: a.file, line: 1, text: `${a.errors} parse error(s)` });
    a.codeLines.forEach((l, i) => {
      if (QB_ANY.test(l) || (area && DYNAMIC.test(l))) (area ? m.qbAnyArea : platform ? m.qbAnyPlatform : []).push({ ...at(a, i + 1), key: a.file });
      if (area && RECORD_ANY.test(l)) m.recordAnyArea.push({ ...at(a, i + 1), key: a.file });
    });
    for (const line of a.casts) m.casts.push(at(a, line));
    const myArea = areaOf(a.file);
    for (const s of a.sql) {
      if (a.file.startsWith('src/migrations/')) continue;
      if (area && a.file.endsWith('.resource.ts')) m.sqlResource.push(at(a, s.line));
      if (area && !repo) m.sqlOutsideRepo.push({ ...at(a, s.line), key: a.file });
      if (platform && !repo) m.sqlPlatform.push(at(a, s.line));
      const foreign = s.tables.filter((t) => {
        const owner = ownerOf(t);
        return owner && owner !== myArea && !(platform && isPlatform(owner));
      });
      if (foreign.length) {
        const item = { ...at(a, s.line), text: `[${foreign.map((t) => `${t} (${ownerOf(t)})`).join(', ')}] ${at(a, s.line).text}`, key: a.file };
        (area ? m.crossArea : platform ? m.crossAreaPlatform : []).push(item);
      }
    }
    if (a.lineCount > MAX_LINES && !GENERATED.has(a.file)) m.longFiles.push({ file: a.file, line: a.lineCount, text: `${a.lineCount} lines`, key: a.file });
    const from = folderOf(a.file);
    for (const imp of a.imports) {
      const to = folderOf(imp.target);
      if (!fileEdges.has(a.file)) fileEdges.set(a.file, new Set());
      if (from === to) {
        fileEdges.get(a.file).add(imp.target);
        continue;
      }
      if (!folderEdges.has(from)) folderEdges.set(from, new Set());
      folderEdges.get(from).add(to);
      const key = `${from} -> ${to}`;
      if (!folderEdgeSites.has(key)) folderEdgeSites.set(key, []);
      folderEdgeSites.get(key).push(at(a, imp.line));
      if (isPlatform(from)) {
        if (!isPlatform(to) && !PLATFORM_MAY_IMPORT.has(imp.target)) m.platformImportsArea.push({ ...at(a, imp.line), key: `${a.file} -> ${imp.target}` });
      } else if (!isPlatform(to) && !isRootFile(to) && imp.target !== `src/${to}/index.ts`) {
        m.pastSurface.push({ ...at(a, imp.line), key: `${a.file} -> ${imp.target}` });
      }
    }
  }
  for (const comp of cycles(folderEdges)) {
    const inside = new Set(comp);
    const sites = [];
    const edges = [];
    for (const [key, list] of folderEdgeSites) {
      const [x, y] = key.split(' -> ');
      if (inside.has(x) && inside.has(y)) edges.push(key);
      // One line per folder pair in the loop: how many imports, and the first of them.
      if (inside.has(x) && inside.has(y)) sites.push({ ...list[0], text: `${key} (${list.length} import${list.length > 1 ? 's' : ''}, first): ${list[0].text}` });
    }
    m.folderCycles.push({ text: comp.join(' ↔ '), members: comp, sites, edges });
  }
  for (const comp of cycles(fileEdges)) {
    const inside = new Set(comp);
    const edges = comp.flatMap((f) => [...fileEdges.get(f)].filter((g) => inside.has(g)).map((g) => `${f} -> ${g}`));
    m.fileCycles.push({ text: comp.join(' ↔ '), members: comp, sites: [], edges });
  }
  for (const t of [...tables].sort()) if (!ownerOf(t)) m.unmapped.push({ text: t });
  const measure = (key, name, items, target, note) => ({ key, name, count: items.length, target, items, note });
  return {
    files: analysed.length,
    folderEdges,
    measures: [
      measure('qbAnyArea', 'query-builder types over any (or dynamic()), area code (lines)', m.qbAnyArea, 0),
      measure('qbAnyPlatform', 'query-builder types over any, src/platform (lines)', m.qbAnyPlatform, null, 'engine may stay generic'),
      measure('recordAnyArea', 'Record<string, any>, area code (lines)', m.recordAnyArea, 0),
      measure('casts', '`as any` / `as never` casts in src/', m.casts, 10, 'at most'),
      measure('sqlResource', 'SQL statements in *.resource.ts (area code)', m.sqlResource, 0),
      measure('sqlOutsideRepo', 'SQL statements outside *.repo.ts (area code)', m.sqlOutsideRepo, 0),
      measure('sqlPlatform', 'SQL statements outside *.repo.ts (src/platform)', m.sqlPlatform, null, 'information'),
      measure('crossArea', "statements naming another area's table (area code)", m.crossArea, 0),
      measure('crossAreaPlatform', "statements naming an area's table (src/platform)", m.crossAreaPlatform, null, 'information'),
      measure('unmapped', 'tables without an owner in TABLE_OWNERS', m.unmapped, 0),
      measure('pastSurface', "imports reaching past another area's index.ts", m.pastSurface, 0),
      measure('platformImportsArea', 'imports from src/platform into areas', m.platformImportsArea, 0),
      measure('folderCycles', 'import cycles between folders', m.folderCycles, 0),
      measure('fileCycles', 'import cycles between files of one folder', m.fileCycles, 0),
      measure('longFiles', `files over ${MAX_LINES} lines in src/`, m.longFiles, 0),
      measure('parseErrors', 'files that do not parse', m.parseErrors, 0),
    ],
  };
}

/**
 * The offenders of one measure as key → count: an import `file -> target`, a file (SQL statements,
 * long files), or an import edge `a -> b` inside a cycle. test/infra/architecture.test.ts compares
 * them with its lists of known offenders.
 */
export function offenderCounts(result, key) {
  const measure = result.measures.find((x) => x.key === key);
  if (!measure) throw new Error(`no measure ${key}`);
  const counts = {};
  for (const item of measure.items) for (const k of item.edges ?? [item.key ?? item.text]) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

function print(result, list) {
  const rows = result.measures.map((x) => [x.name, String(x.count), x.target === null ? `— (${x.note})` : x.note ? `≤ ${x.target}` : String(x.target)]);
  const head = ['measure', 'count', 'target'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => `| ${r.map((c, i) => (i === 1 ? c.padStart(w[i]) : c.padEnd(w[i]))).join(' | ')} |`;
  console.log(fmt(head));
  console.log(`|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`);
  for (const r of rows) console.log(fmt(r));
  console.log(`(${result.files} files under src/; definitions at the top of scripts/architecture-measures.mjs)`);
  if (!list) return;
  for (const x of result.measures) {
    if (!x.items.length) continue;
    console.log(`\n## ${x.name}: ${x.count}`);
    for (const it of x.items) {
      console.log(it.file ? `${it.file}:${it.line}: ${it.text}` : it.text);
      for (const s of it.sites ?? []) console.log(`    ${s.file}:${s.line}: ${s.text}`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const only = args.filter((a) => !a.startsWith('--'));
  const result = analyseSources();
  if (only.length) result.measures = result.measures.filter((x) => only.includes(x.key));
  if (args.includes('--offenders')) {
    // The known-offender lists of test/infra/architecture.test.ts, as they are today.
    const out = {};
    for (const x of result.measures) out[x.key] = offenderCounts(result, x.key);
    console.log(JSON.stringify(out, null, 2));
  } else print(result, args.includes('--list'));
}
