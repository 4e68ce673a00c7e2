// CI's first check after `npm ci`: the running Node satisfies package.json's `engines.node` (a semver
// range), or the run fails loudly here instead of with an obscure error deep in the suite.
// `node scripts/check-node-version.mjs [version]` checks `version` instead of the running Node's.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const range = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines?.node;
const version = process.argv[2] ?? process.version;
if (!range || !semver.validRange(range)) {
  console.error(`FAIL: package.json has no valid engines.node range (${range})`);
  process.exit(1);
}
if (!semver.satisfies(version, range)) {
  console.error(`FAIL: Node ${version} does not satisfy engines.node "${range}" in package.json; install a Node that does.`);
  process.exit(1);
}
console.log(`Node ${version} satisfies engines.node "${range}"`);
