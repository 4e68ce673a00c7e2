import { readFileSync } from 'node:fs';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';
import parsersMod from '@stoplight/spectral-parsers';
import { lintFromString, createConfig } from '@redocly/openapi-core';
const { Spectral, Document } = spectralCore;
const f = process.argv[2]; const text = readFileSync(f, 'utf8');
const count = (arr) => { const m = {}; for (const x of arr) m[x] = (m[x] ?? 0) + 1; return m; };
for (const [name, rs] of [['oas', oas], ['owasp', owasp.default ?? owasp]]) {
  const s = new Spectral(); s.setRuleset(rs);
  const r = await s.run(new Document(text, (parsersMod.Json ?? parsersMod.default?.Json), f));
  console.log(name, r.length, count(r.map(x => `${x.code}/${['error','warn','info','hint'][x.severity]}`)));
  if (process.env.SHOW === name) for (const x of r.slice(0, 40)) console.log('  ', x.code, x.path.join('.'), x.message);
}
const config = await createConfig({ extends: ['recommended'] });
const r = await lintFromString({ source: text, absoluteRef: f, config });
console.log('redocly', r.length, count(r.map(x => `${x.ruleId}/${x.severity}`)));
if (process.env.SHOW === 'redocly') for (const x of r.slice(0, 40)) console.log('  ', x.ruleId, x.location?.[0]?.pointer, x.message);
