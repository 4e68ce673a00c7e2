import autocannon from 'autocannon';
import { startServer } from './dist/bench/server.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
const dialect = process.argv[2] ?? 'sqlite';
const secs = Number(process.argv[3] ?? 5);
const dataDir = mkdtempSync(join(tmpdir(), 'gb-'));
const env = { DATA_DIR: dataDir };
if (dialect === 'postgres') {
  const name = 'gb_' + Date.now();
  const c = new pg.Client('postgres://postgres@127.0.0.1:5433/postgres'); await c.connect(); await c.query(`create database ${name}`); await c.end();
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:5433/${name}`;
}
const server = await startServer({ mainJs: join(process.cwd(), 'dist/src/main.js'), cwd: process.cwd(), env });
const base = server.baseUrl;
const j = async (m, p, b, t) => { const r = await fetch(base + p, { method: m, headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: b ? JSON.stringify(b) : undefined }); return r.json(); };
const su = await j('POST', '/site-api/v1/users', { email: 'a@example.com', password: 'analytical9', website_name: 'Ada', default_language: 'en', captcha_token: 'dev-captcha', request_id: 'r1' });
await new Promise((r) => setTimeout(r, 1500));
const { token } = await j('POST', '/tenant-api/v1/users:exchange_handoff', { signup_token: su.signup_token });
const website = su.operation.split('/')[1];
const page = await j('POST', `/tenant-api/v1/websites/${website}/cms_pages`, { title: 'Hello', url_key: 'hello', content: '<p>x</p>' }, token);
const run = (url, auth) => new Promise((res) => autocannon({ url: base + url, connections: 50, duration: secs, headers: auth ? { authorization: 'Bearer ' + token } : {} }, (e, r) => res(r)));
await run('/healthz'); // warm
const out = {};
for (const [k, u, a] of [['ceiling', '/healthz', false], ['website', `/tenant-api/v1/websites/${website}`, true], ['page', `/tenant-api/v1/websites/${website}/cms_pages/${page.id}`, true], ['ceiling2', '/healthz', false]]) {
  const r = await run(u, a); out[k] = { rps: r.requests.average, non2xx: r.non2xx, p99: r.latency.p99 };
}
const ceil = (out.ceiling.rps + out.ceiling2.rps) / 2;
for (const k of Object.keys(out)) console.log(dialect, k, Math.round(out[k].rps), 'non2xx', out[k].non2xx, 'ratio', (out[k].rps / ceil).toFixed(3));
await server.stop();
