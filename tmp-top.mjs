import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
for (let i = 0; i < p.samples.length; i++) { const n = byId.get(p.samples[i]); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]); total += dt[i]; }
// inclusive by file
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (let i = 0; i < p.samples.length; i++) { const seen = new Set(); let id = p.samples[i]; while (id) { const n = byId.get(id); const f = n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/dist\//, 'dist/').split('/').slice(0, 3).join('/'); if (!seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) ?? 0) + dt[i]); } id = parent.get(id); } }
console.log('total ms', total / 1000);
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / total * 100).toFixed(1)}% ${k}`).join('\n'));
console.log('--- inclusive by module');
console.log([...incl].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / total * 100).toFixed(1)}% ${k}`).join('\n'));
