// Runs at the end of `npm ci` / `npm install`, on the project's own Node (the pinned `node` package;
// npm puts node_modules/.bin first on PATH for scripts). It checks that the runtime is the pinned one
// and that the native addons load on it. better-sqlite3 13 ships N-API binaries that load on any Node
// with Node-API 10 (22.14+), so the rebuild below is a safety net for a machine without a prebuilt
// binary: it builds against the project's runtime and the headers shipped in the node package, so
// nothing has to be downloaded. Plain Node, no dependencies.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const wanted = readWantedVersion();

if (wanted && process.version !== `v${wanted}`) {
  console.error(
    `postinstall: running on Node ${process.version}, expected the project's own v${wanted} ` +
      `(node_modules/.bin/node); install Node ${wanted} or run npm scripts through npm.`,
  );
  process.exit(1);
}

/** Addons that must load on the project's Node (sharp and argon2 ship N-API binaries per platform package). */
const abiAddons = ['better-sqlite3'];

for (const name of abiAddons) {
  if (loads(name)) continue;
  const headers = nodeHeadersDir();
  console.log(`postinstall: rebuilding ${name} for Node ${process.version}${headers ? ` (headers: ${headers})` : ''}`);
  const env = { ...process.env };
  if (headers) env.npm_config_nodedir = headers;
  const result = spawnSync('npm', ['rebuild', name, '--foreground-scripts'], { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0 || !loads(name)) {
    console.error(`postinstall: ${name} does not load on Node ${process.version} after a rebuild`);
    process.exit(1);
  }
}

function loads(name) {
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(name)})(':memory:').close()`], {
    cwd: root,
    encoding: 'utf8',
  });
  return probe.status === 0;
}

/** The include/ tree of the node-<platform>-<arch> package that `node` installed, when present. */
function nodeHeadersDir() {
  try {
    const nodePkg = dirname(require.resolve('node/package.json'));
    const arch = `node-${process.platform}-${process.arch}`;
    for (const base of [join(nodePkg, 'node_modules', arch), join(root, 'node_modules', arch)]) {
      if (existsSync(join(base, 'include', 'node', 'node.h'))) return base;
    }
  } catch {
    // No node package: build against whatever npm is configured with.
  }
  return undefined;
}

function readWantedVersion() {
  try {
    return require('./package.json').dependencies?.node;
  } catch {
    return undefined;
  }
}
