import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
const dialect = process.argv[2] ?? 'postgres';
const N = Number(process.argv[3] ?? 20000);
const dataDir = mkdtempSync(join(tmpdir(), 'gc-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT: '0' };
let dbname;
if (dialect === 'postgres') {
  dbname = 'gc_' + Date.now();
  const c = new pg.Client('postgres://postgres@127.0.0.1:5433/postgres'); await c.connect(); await c.query(`create database ${dbname}`); await c.end();
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:5433/${dbname}`;
}
const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((res) => child.stdout.on('data', (d) => { const m = /listening on (\S+)/.exec(String(d)); if (m) res(m[1]); }));
const j = async (m, p, b, t) => { const r = await fetch(base + p, { method: m, headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: b ? JSON.stringify(b) : undefined }); return r.json(); };
const su = await j('POST', '/site-api/v1/users', { email: 'a@example.com', password: 'analytical9', website_name: 'Ada', default_language: 'en', captcha_token: 'dev-captcha', request_id: 'r1' });
await new Promise((r) => setTimeout(r, 1500));
const { token } = await j('POST', '/tenant-api/v1/users:exchange_handoff', { signup_token: su.signup_token });
const website = su.operation.split('/')[1];
const page = await j('POST', `/tenant-api/v1/websites/${website}/cms_pages`, { title: 'Hello', url_key: 'hello', content: '<p>x</p>' }, token);
const ticks = (pid) => { try { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); } catch { return 0; } };
let pgPids = [];
const admin = new pg.Client('postgres://postgres@127.0.0.1:5433/postgres'); await admin.connect();
const cpuParts = async () => { let s = ticks(child.pid); let b = 0; if (dbname) { pgPids = (await admin.query("select pid from pg_stat_activity where datname=$1", [dbname])).rows.map((r) => r.pid); for (const p of pgPids) b += ticks(p); } return [s, b]; };
const cpu = async () => { let t = ticks(child.pid); if (dbname) { pgPids = (await admin.query('select pid from pg_stat_activity where datname=$1', [dbname])).rows.map((r) => r.pid); for (const p of pgPids) t += ticks(p); } return t; };
const run = (url, auth) => new Promise((res) => autocannon({ url: base + url, connections: 20, amount: N, headers: auth ? { authorization: 'Bearer ' + token } : {} }, (e, r) => res(r)));
await run('/healthz', false);
await run(`/tenant-api/v1/websites/${website}`, true);
const res = {};
for (const [k, u, a] of [['ceiling', '/healthz', false], ['website', `/tenant-api/v1/websites/${website}`, true], ['page', `/tenant-api/v1/websites/${website}/cms_pages/${page.id}`, true]]) {
  const p0 = await cpuParts(); const c0 = await cpu(); const r = await run(u, a); const c1 = await cpu(); const p1 = await cpuParts(); console.log(k, "server µs", ((p1[0]-p0[0])*1e4/N).toFixed(1), "pg µs", ((p1[1]-p0[1])*1e4/N).toFixed(1));
  res[k] = ((c1 - c0) * 10 * 1000) / N; // µs per request (ticks = 10ms)
  console.log(dialect, k, 'µs CPU/request (server+pg backends)', res[k].toFixed(1), 'non2xx', r.non2xx, 'rps', Math.round(r.requests.average));
}
console.log(dialect, 'ratio website', (res.ceiling / res.website).toFixed(3), 'page', (res.ceiling / res.page).toFixed(3));
await admin.end();
child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r));
