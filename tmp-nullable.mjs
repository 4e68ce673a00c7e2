import { buildApp } from './dist/src/app.js';
import { loadConfig } from './dist/src/config.js';
import { openDatabase } from './dist/src/platform/db/database.js';
import { migrateToLatest } from './dist/src/platform/db/migrate.js';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const dir = mkdtempSync(join(tmpdir(), 'nl-'));
const config = loadConfig({ DATA_DIR: dir, PUBLIC_BASE_URL: 'http://x' });
const database = openDatabase({ dataDir: dir });
await migrateToLatest(database);
const p = await buildApp({ config, database });
const seen = new Set();
for (const s of Object.values(p.services)) {
  const d = s.decl; if (seen.has(d) || d.virtual) continue; seen.add(d);
  const cols = (await import('kysely')).sql;
  const info = (await cols`select name, "notnull" from pragma_table_info(${d.table})`.execute(database.db)).rows;
  const nn = Object.fromEntries(info.map((r) => [r.name, r.notnull]));
  for (const name of d.sortable) {
    const f = d.fields[name]; if (!f) continue;
    const nullable = !(f.behavior ?? []).includes('REQUIRED') && f.default === undefined;
    const col = f.column ?? name;
    if (nullable && nn[col] === 1) console.log(d.collection, name, 'NOT NULL column but treated nullable');
  }
}
await p.app.close(); await database.close();
