// `npm start` (and `npm run build:admin`): builds the admin web app when its sources changed since the last build.
import { ensureAdminBuilt } from './build.js';

const started = Date.now();
ensureAdminBuilt({ log: (line) => console.error(line) }).then(
  ({ built }) => {
    if (built) console.error(`admin web app built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  },
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
