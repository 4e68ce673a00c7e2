import { loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';

/** `npm run migrate`: apply pending migrations and exit. */
const config = loadConfig();
const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
migrateToLatest(database)
  .then(async (applied) => {
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
    await database.close();
  })
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
