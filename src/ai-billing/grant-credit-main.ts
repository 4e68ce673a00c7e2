import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { createBillingService } from './billing.service.js';
import { moneyFromNanos, nanosFromDecimal } from './money.js';

/**
 * Operator command: credits an account's AI balance (a CREDIT ledger entry).
 *   npm run ai:grant-credit -- --account <account id> --amount 10.00 [--note "why"]
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { account: { type: 'string' }, amount: { type: 'string' }, note: { type: 'string' } } });
  if (!values.account || !values.amount) throw new Error('usage: npm run ai:grant-credit -- --account <account id> --amount <US dollars, e.g. 10.00> [--note <text>]');
  const amount = nanosFromDecimal(values.amount);
  if (amount <= 0) throw new Error('--amount must be positive');
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database);
    const billing = createBillingService({ db: database.db, dialect: database.dialect });
    const balance = await billing.grantCredit(values.account, amount, values.note ?? 'Credit granted by an operator', Date.now());
    const money = moneyFromNanos(balance);
    console.log(`granted ${values.amount} USD to account ${values.account}; balance now ${money.units}.${String(Math.abs(money.nanos)).padStart(9, '0')} USD`);
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
