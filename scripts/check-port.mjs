// Runs first in `npm start`, before the build: a port that is taken (or unusable) is one line on
// stderr and exit code 1, instead of a stack trace after the build and the migrations. Plain Node, no
// dependencies, so it works before anything is built. main.ts checks again (the port may be taken
// between this check and the real listen).
import { createServer } from 'node:net';

const raw = process.env.PORT ?? '8080';
const port = Number(raw);
const host = process.env.HOST ?? '127.0.0.1';

if (!/^\d+$/.test(raw) || port > 65535) {
  console.error(`PORT must be a number from 0 to 65535, not ${raw}`);
  process.exit(1);
}
// PORT=0 asks for any free port: nothing to check.
if (port === 0) process.exit(0);

const server = createServer();
server.once('error', (err) => {
  if (err.code === 'EADDRINUSE') console.error(`port ${port} is already in use (set PORT)`);
  else if (err.code === 'EACCES') console.error(`port ${port} needs privileges this user does not have (set PORT)`);
  else if (err.code === 'EADDRNOTAVAIL') console.error(`${host} is not an address of this machine (set HOST)`);
  else console.error(`cannot listen on ${host}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, host, () => server.close());
