// The admin's first-screen weight (docs/performance.md): gzip (level 9) of the JavaScript and CSS a
// screen loads — the entry chunk, the screen's lazy chunk and everything they import statically —
// read from the build manifest of admin/dist (`npm run build -w admin` or `npm run build:admin` first).
// Usage: node scripts/admin-size.mjs   (budget: 250 KiB of JavaScript for the first screen)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = join(import.meta.dirname, '..', 'admin', 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);

function closure(keys) {
  const seen = new Set();
  const visit = (k) => {
    if (seen.has(k) || !manifest[k]) return;
    seen.add(k);
    for (const i of manifest[k].imports ?? []) visit(i);
  };
  keys.forEach(visit);
  return seen;
}

const screens = {
  'sign-in (/sign-in, the first screen)': ['src/areas/users/SignInPage.tsx'],
  'website home (/w/{id})': ['src/lib/layout/WebsiteShell.tsx', 'src/areas/websites/WebsiteHomePage.tsx'],
};
let failed = false;
for (const [name, lazy] of Object.entries(screens)) {
  const chunks = closure([entry, ...lazy]);
  const js = [...chunks].reduce((sum, k) => sum + gz(manifest[k].file), 0);
  const css = [...new Set([...chunks].flatMap((k) => manifest[k].css ?? []))].reduce((sum, f) => sum + gz(f), 0);
  console.log(`${name}: JavaScript ${(js / 1024).toFixed(1)} KiB gzip in ${chunks.size} chunks, CSS ${(css / 1024).toFixed(1)} KiB gzip`);
  if (name.includes('first screen') && js > 250 * 1024) failed = true;
}
if (failed) {
  console.error('the first screen is over its 250 KiB budget');
  process.exit(1);
}
