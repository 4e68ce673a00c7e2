import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map(); let total = 0;
for (let i = 0; i < p.samples.length; i++) { const dt = p.timeDeltas[i]; total += dt; const seen = new Set(); let id = p.samples[i]; while (id) { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/dist\//, 'dist/')}:${n.callFrame.lineNumber}`; if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + dt); } id = parent.get(id); } }
const re = new RegExp(process.argv[3] ?? '.');
console.log([...incl].filter(([k]) => re.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `${(v / total * 100).toFixed(1)}% ${k}`).join('\n'));
