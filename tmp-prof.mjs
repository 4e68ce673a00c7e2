import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
const dialect = process.argv[2] ?? 'postgres';
const dataDir = mkdtempSync(join(tmpdir(), 'gp-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT: '0' };
if (dialect === 'postgres') {
  const name = 'gp_' + Date.now();
  const c = new pg.Client('postgres://postgres@127.0.0.1:5433/postgres'); await c.connect(); await c.query(`create database ${name}`); await c.end();
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:5433/${name}`;
}
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-' + dialect, 'dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((res) => child.stdout.on('data', (d) => { const m = /listening on (\S+)/.exec(String(d)); if (m) res(m[1]); }));
const j = async (m, p, b, t) => { const r = await fetch(base + p, { method: m, headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: b ? JSON.stringify(b) : undefined }); return r.json(); };
const su = await j('POST', '/site-api/v1/users', { email: 'a@example.com', password: 'analytical9', website_name: 'Ada', default_language: 'en', captcha_token: 'dev-captcha', request_id: 'r1' });
await new Promise((r) => setTimeout(r, 1500));
const { token } = await j('POST', '/tenant-api/v1/users:exchange_handoff', { signup_token: su.signup_token });
const website = su.operation.split('/')[1];
const r = await new Promise((res) => autocannon({ url: `${base}/tenant-api/v1/websites/${website}`, connections: 20, amount: 60000, headers: { authorization: 'Bearer ' + token } }, (e, r) => res(r)));
console.log('rps', r.requests.average, 'non2xx', r.non2xx);
child.kill('SIGINT');
await new Promise((r) => child.on('exit', r));
